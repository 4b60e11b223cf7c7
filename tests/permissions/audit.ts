/**
 * `deno task audit:permissions`: runs the whole test suite with Deno's
 * permission audit on every peaks process the tests start through the shared
 * support code (DENO_AUDIT_PERMISSIONS, one JSONL file per process), then writes
 * docs/permissions-audit.json and docs/permissions-audit.md: every permission
 * actually used, by kind, next to the `peaks` set in deno.json. The test in
 * tests/repo/permissions_audit_test.ts fails when deno.json grants more than
 * this report justifies.
 *
 *     deno run -A tests/permissions/audit.ts [--skip-tests <dir with .jsonl files>]
 */
import { dirname, join, parseArgs } from "../../lib/infra/std.ts";
import { cacheDir, REPO } from "../support/cli.ts";
import { type AuditReport, buildReport, renderMarkdown } from "./report.ts";

const args = parseArgs(Deno.args, { string: ["skip-tests"] });

/** The folder temp dirs are made in (where every test project lives). */
async function tempRoot(): Promise<string> {
  const probe = await Deno.makeTempDir();
  await Deno.remove(probe);
  return await Deno.realPath(dirname(probe));
}

async function runSuite(dir: string): Promise<{ code: number; files: number }> {
  const tests = await new Deno.Command(Deno.execPath(), {
    args: ["test", "-q", "--frozen", "--allow-all", "--parallel", "tests/"],
    cwd: REPO,
    env: { PEAKS_AUDIT_DIR: dir },
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  let files = 0;
  for await (const entry of Deno.readDir(dir)) if (entry.name.endsWith(".jsonl")) files++;
  return { code: tests.code, files };
}

async function readEvents(
  dir: string,
): Promise<Array<{ permission: string; value: string | null }>> {
  const events: Array<{ permission: string; value: string | null }> = [];
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.name.endsWith(".jsonl")) continue;
    for (const line of (await Deno.readTextFile(join(dir, entry.name))).split("\n")) {
      if (!line.trim()) continue;
      try {
        const event = JSON.parse(line);
        events.push({ permission: String(event.permission), value: event.value ?? null });
      } catch {
        // Two processes never share a file; a torn last line of a killed one is skipped.
      }
    }
  }
  return events;
}

const skip = args["skip-tests"] as string | undefined;
const dir = skip ?? await Deno.makeTempDir({ prefix: "peaks-audit-" });
const suite = skip ? { code: 0, files: -1 } : await runSuite(dir);
const events = await readEvents(dir);
const config = JSON.parse(await Deno.readTextFile(join(REPO, "deno.json")));
const demo = await Deno.readTextFile(join(REPO, "demo", "run.ts"));
const report: AuditReport = buildReport(events, config.permissions.peaks, {
  repo: REPO,
  temp: await tempRoot(),
  denoDir: await cacheDir(),
  pathDirs: (Deno.env.get("PATH") ?? "").split(":").filter(Boolean),
  processes: suite.files,
  demo: demo.includes("not available") ? "not available yet (nothing to audit)" : "audited",
});
await Deno.writeTextFile(
  join(REPO, "docs", "permissions-audit.json"),
  `${JSON.stringify(report, null, 2)}\n`,
);
await Deno.writeTextFile(join(REPO, "docs", "permissions-audit.md"), renderMarkdown(report));
// Written as `deno fmt` would lay it out, so `deno task check` stays clean.
await new Deno.Command(Deno.execPath(), {
  args: ["fmt", "-q", "docs/permissions-audit.md", "docs/permissions-audit.json"],
  cwd: REPO,
}).output();
console.log(
  `audited ${events.length} permission checks from ${suite.files} processes; ` +
    `unjustified grants: ${report.unjustified.length}, used but not granted: ${report.ungranted.length}`,
);
if (suite.code !== 0) {
  console.error(`the test suite exited ${suite.code}; the report may be partial`);
}
if (!skip) await Deno.remove(dir, { recursive: true });
