/**
 * A clean tree stays clean: a second session start (workspace init, presence,
 * scan, standards) rewrites no tracked file when nothing in the project changed.
 */
import { assert, assertEquals } from "@std/assert";
import { runPeaks } from "../../support/cli.ts";
import { tempDir, writeText } from "../../support/temp.ts";

async function git(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args: ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args],
    cwd,
    stdout: "piped",
    stderr: "piped",
    env: { GIT_CONFIG_NOSYSTEM: "1", HOME: cwd },
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return text;
}

/** The skill's startup after `session start`: the scan and the standards it applies. */
const STARTUP = [
  ["scan", "archetype", "--json"],
  ["standards", "init", "--apply", "--json"],
];

async function startSession(root: string, sessionId: string): Promise<void> {
  const start = ["session", "start", "--skill", "peaks-code", "--session-id", sessionId, "--json"];
  for (const args of [start, ...STARTUP]) {
    const result = await runPeaks(args, { cwd: root });
    assertEquals(result.code, 0, `${args.join(" ")}: ${result.stdout}${result.stderr}`);
  }
}

Deno.test("a committed .peaks stays clean across a new session start", async () => {
  await using dir = await tempDir();
  const root = dir.path;
  await writeText(
    `${root}/package.json`,
    JSON.stringify({ name: "todo", scripts: { test: "node --test" } }, null, 2),
  );
  await writeText(`${root}/public/index.html`, "<!doctype html><title>todo</title>\n");
  await writeText(`${root}/server.js`, "export {};\n");
  await git(root, "init", "-q");
  await startSession(root, "2026-12-01-session-aaaaaa");
  const scan = JSON.parse(await Deno.readTextFile(`${root}/.peaks/project-scan/project-scan.json`));
  assertEquals(scan.stack.testRunner, "node:test");
  assert(scan.signals.includes("frontend files: public/index.html"), scan.signals.join("\n"));
  await git(root, "add", "-A");
  await git(root, "commit", "-q", "-m", "first session");
  await startSession(root, "2026-12-02-session-bbbbbb");
  assertEquals(await git(root, "status", "--porcelain"), "", await git(root, "diff"));
});
