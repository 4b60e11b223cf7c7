/**
 * Workflow steps never write at the repository root, so screenshots,
 * snapshots, test-runner reports and mock servers found there are strays.
 * The rule is conservative: only the root folder itself is read (one
 * listing, capped), only names from the lists below count, and only when
 * git says they are neither tracked nor ignored; outside a checkout the
 * project's own files cannot be told apart, so the check is skipped.
 * Doctor reports them and never deletes anything.
 */
import { untrackedPaths } from "../infra/git.ts";
import { commandLine } from "../infra/shell.ts";
import { type Check, somePaths } from "./model.ts";

export const MAX_ROOT_ENTRIES = 10_000;

/** Files: screenshots, test snapshots, recorded traffic, mock-server scripts. */
const STRAY_FILES = [
  /\.(png|jpe?g|gif|webp|bmp)$/i,
  /\.snap$/i,
  /\.har$/i,
  /^mock[-_.]?server.*\.[cm]?[jt]sx?$/i,
];

/** Folders that test runners, browser tools and mock servers create in the cwd. */
const STRAY_DIRS = new Set([
  "test-results",
  "playwright-report",
  "blob-report",
  "__snapshots__",
  "screenshots",
  ".playwright-mcp",
  "mock-server",
]);

/** Names at the root that look like workflow output (symlinks are never counted). */
export function strayCandidates(entries: Pick<Deno.DirEntry, "name" | "isFile" | "isDirectory">[]) {
  return entries.filter((e) =>
    e.isDirectory ? STRAY_DIRS.has(e.name) : e.isFile && STRAY_FILES.some((p) => p.test(e.name))
  ).map((e) => e.name).sort();
}

export const rootFilesCheck: Check = {
  name: "root-files",
  async run({ project }) {
    const entries: Deno.DirEntry[] = [];
    for await (const entry of Deno.readDir(project.root)) {
      entries.push(entry);
      if (entries.length >= MAX_ROOT_ENTRIES) break;
    }
    const candidates = strayCandidates(entries);
    if (!candidates.length) {
      return { summary: "no screenshots, snapshots or mock servers at the root", findings: [] };
    }
    const stray = await untrackedPaths(project.root, candidates);
    if (stray === undefined) {
      return {
        skipped:
          `not a git checkout (or git cannot run): ${candidates.length} name(s) at the root look like workflow output but cannot be told from the project's own files`,
        summary: "",
        findings: [],
      };
    }
    if (!stray.length) {
      return { summary: "root files that look like output are tracked or ignored", findings: [] };
    }
    const shown = somePaths(stray);
    return {
      summary: `${stray.length} stray file(s) at the root`,
      findings: [{
        id: "root.stray-files",
        severity: "warning",
        title: `${stray.length} untracked screenshot, snapshot or mock-server file(s) at the root`,
        detail:
          `Workflow steps keep their output under .peaks/ (screenshots in .peaks/_runtime/<sid>/qa/screenshots/), never at the root. Check them with \`${
            commandLine(["git", "status", "--short", "--", ...shown])
          }\`, then move them under .peaks/ or delete them once the user agrees; peaks never deletes them.`,
        fix: null,
        paths: shown,
      }],
    };
  },
};
