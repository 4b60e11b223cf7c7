/**
 * The files outside `.peaks/` that peaks itself writes into a project: installed skills and their
 * manifest, Claude Code's settings (allow rule, status line, hooks) and the standards blocks in
 * CLAUDE.md and AGENTS.md. Reviews and the dirty-tree check count them apart from the user's and
 * the sub-agents' changes.
 */
const OWN_FILE =
  /^(\.(claude|agents|trae)\/skills\/(peaks-[^/]+\/|\.peaks-skills-manifest\.json$)|\.claude\/settings(\.local)?\.json$|(CLAUDE|AGENTS)\.md$)/;

/** Whether a project-relative path (forward slashes) is one peaks writes. */
export function isPeaksOwnFile(path: string): boolean {
  return OWN_FILE.test(path);
}

/** A `git status --porcelain` line's path (the target of a rename), as git prints it. */
export function porcelainPath(line: string): string {
  return line.slice(3).replace(/^"|"$/g, "").split(" -> ").at(-1)!;
}
