/** The bundled sample project, copied into a fresh git repository for a run. */
import { fromFileUrl, join } from "../lib/infra/std.ts";

const SAMPLE = new URL("./sample-project/", import.meta.url);

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory) await copyTree(source, target);
    else if (entry.isFile) await Deno.copyFile(source, target);
  }
}

async function git(root: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("git", {
    args: ["-c", "user.name=peaks demo", "-c", "user.email=demo@peaks.invalid", ...args],
    cwd: root,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (out.code !== 0) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
}

/** Copies the sample into `root` and commits it, so dispatch records a git head. */
export async function copySampleProject(root: string): Promise<void> {
  await copyTree(fromFileUrl(SAMPLE), root);
  await git(root, "init", "-q", "-b", "main");
  await git(root, "add", "-A");
  await git(root, "commit", "-q", "-m", "team-directory 0.3.0");
}
