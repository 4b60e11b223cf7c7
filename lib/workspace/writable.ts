/**
 * The check every project-knowledge write goes through: the target stays
 * inside the project (no symlinked folder leading out) and is not itself a
 * symlink. Nothing is written through a link.
 */
import type { Project } from "./project.ts";
import { displayPath } from "./paths.ts";
import { assertNotSymlink, guardPath } from "../infra/fs/guard.ts";
import { PeaksError } from "../infra/errors.ts";

export async function assertWritable(project: Project, path: string, what: string): Promise<void> {
  const rel = displayPath(project.root, path);
  try {
    await guardPath(project.root, project.root, rel, { flag: "project" });
  } catch (error) {
    if (!(error instanceof PeaksError) || error.code !== "PATH_OUTSIDE_PROJECT") throw error;
    throw new PeaksError(
      "PATH_OUTSIDE_PROJECT",
      `Refusing to write ${what} at ${rel}: it resolves outside the project ${project.root} (a symlinked folder on the way).`,
      { data: { path: rel, projectRoot: project.root } },
    );
  }
  await assertNotSymlink(path, what);
}
