/** Fixture skill trees for the skills tests: real folders in a temp dir, never the repository's. */
import { join } from "../../lib/infra/std.ts";
import { writeText } from "./temp.ts";

export function skillMd(
  name: string,
  description = `Does ${name} things. Use when testing.`,
  body = "# Body\n",
): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;
}

/** Writes `files` (relative path -> content) under `root`. */
export async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    await writeText(join(root, ...rel.split("/")), content);
  }
}

/** A small valid tree: peaks-code (with a reference) and peaks-rd, plus a README that is not a skill. */
export async function standardTree(root: string): Promise<void> {
  await writeTree(root, {
    "README.md": "Not a skill.\n",
    "peaks-code/SKILL.md": skillMd("peaks-code"),
    "peaks-code/references/runbook.md": "# Runbook\n",
    "peaks-rd/SKILL.md": skillMd("peaks-rd"),
  });
}

/** Every file under `root` (symlinks shown as `-> target`), with its content: compares whole trees. */
export async function snapshot(root: string, prefix = ""): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  let entries: Deno.DirEntry[] = [];
  try {
    for await (const entry of Deno.readDir(root)) entries.push(entry);
  } catch {
    return out;
  }
  entries = entries.sort((a, b) => a.name < b.name ? -1 : 1);
  for (const entry of entries) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    const path = join(root, entry.name);
    if (entry.isSymlink) out[rel] = `-> ${await Deno.readLink(path)}`;
    else if (entry.isDirectory) {
      out[`${rel}/`] = "";
      Object.assign(out, await snapshot(path, rel));
    } else out[rel] = await Deno.readTextFile(path);
  }
  return out;
}
