/** The workspace skeleton: directories and the managed .peaks/.gitignore. */
import type { Project } from "./project.ts";
import { displayPath } from "./paths.ts";
import { FileRefused, readBoundedText, writeFileAtomic } from "../infra/fs/files.ts";
import { PeaksError } from "../infra/errors.ts";
import { commandLine } from "../infra/shell.ts";
import { confineState } from "../infra/fs/confine.ts";

export const GITIGNORE_BEGIN =
  "# >>> peaks managed block (peaks rewrites this block; edit outside it)";
export const GITIGNORE_END = "# <<< peaks managed block";

/** Patterns relative to .peaks/: run-time state, local preferences, lock and temp files. */
export const GITIGNORE_PATTERNS = [
  "_runtime/",
  "_sub_agents/",
  "preferences.local*",
  "*.lock",
  "*.tmp",
];

export function gitignoreBlock(): string {
  return [GITIGNORE_BEGIN, ...GITIGNORE_PATTERNS, GITIGNORE_END].join("\n");
}

/** Returns the file content with the managed block created, refreshed or appended. */
export function withGitignoreBlock(current: string | undefined): string {
  const block = gitignoreBlock();
  if (current === undefined || current.trim() === "") return `${block}\n`;
  const begin = current.indexOf(GITIGNORE_BEGIN);
  const end = current.indexOf(GITIGNORE_END, begin + 1);
  if (begin !== -1 && end !== -1) {
    return current.slice(0, begin) + block + current.slice(end + GITIGNORE_END.length);
  }
  return `${current}${current.endsWith("\n") ? "" : "\n"}\n${block}\n`;
}

export type FileOutcome = "created" | "updated" | "unchanged";

export async function ensureGitignore(project: Project): Promise<FileOutcome> {
  const path = project.layout.gitignore;
  let current: string | undefined;
  try {
    current = await readBoundedText(path);
  } catch (error) {
    if (!(error instanceof FileRefused)) throw error;
    throw new PeaksError(
      "NOT_A_REGULAR_FILE",
      `Refusing to rewrite ${path}: ${error.reason}. Move it aside and run the command again.`,
      { data: { path }, nextActions: [commandLine(["mv", path, `${path}.aside`])] },
    );
  }
  const next = withGitignoreBlock(current);
  if (next === current) return "unchanged";
  await writeFileAtomic(path, next);
  return current === undefined ? "created" : "updated";
}

/** Creates the workspace directories; reports which were new and which existed. */
export async function ensureWorkspaceDirs(
  project: Project,
): Promise<{ created: string[]; existing: string[] }> {
  const created: string[] = [];
  const existing: string[] = [];
  for (const dir of [project.layout.peaks, project.layout.runtime, project.layout.subAgents]) {
    try {
      await confineState(dir, { self: true });
      await Deno.mkdir(dir);
      created.push(displayPath(project.root, dir));
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
      existing.push(displayPath(project.root, dir));
    }
  }
  return { created, existing };
}
