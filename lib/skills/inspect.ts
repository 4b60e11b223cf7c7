/**
 * What is installed in a skills folder, compared with the manifest and (when
 * given) with the source: the shared reading behind `skills list` and
 * `skills verify`. Read-only.
 */
import type { AgentId, InstallRoot } from "./agents.ts";
import { type Manifest, readManifest } from "./manifest.ts";
import { inspectRoot } from "./root.ts";
import type { SkillsSource } from "./source.ts";
import { blockedParent, hashFileAt, resolveRel } from "./tree.ts";

export type FileState =
  /** Matches what peaks wrote and the source. */
  | "ok"
  /** Edited since peaks wrote it. */
  | "modified"
  /** Peaks wrote it; it is gone. */
  | "missing"
  /** A symlink or folder stands where peaks wrote a file. */
  | "not-a-file"
  /** Untouched, but the source has a newer version. */
  | "outdated"
  /** Peaks wrote it; the source no longer ships it. */
  | "obsolete"
  /** The source ships it; it was never installed here. */
  | "not-installed";

const SEVERITY: FileState[] = [
  "ok",
  "outdated",
  "obsolete",
  "not-installed",
  "missing",
  "modified",
  "not-a-file",
];

export interface FileReport {
  path: string;
  state: FileState;
}

export interface SkillReport {
  name: string;
  /** The worst state among its files. */
  state: FileState;
}

export interface RootState {
  scope: InstallRoot["scope"];
  dir: string;
  path: string;
  /** The agents asked about that read this folder. */
  agents: AgentId[];
  installed: boolean;
  /** Agents the manifest records the install for. */
  recordedAgents: AgentId[];
  version: string | null;
  updatedAt: string | null;
  skills: SkillReport[];
  /** Files whose state is not `ok`. */
  files: FileReport[];
  /** Skill folders here that peaks did not install (never touched). */
  foreign: string[];
}

async function fileState(root: string, rel: string, sha: string): Promise<FileState> {
  if (await blockedParent(root, rel)) return "not-a-file";
  const found = await hashFileAt(resolveRel(root, rel));
  if (found.kind === "missing") return "missing";
  if (found.kind !== "file") return "not-a-file";
  return found.sha256 === sha ? "ok" : "modified";
}

async function foreignSkills(root: string, manifest: Manifest | undefined): Promise<string[]> {
  const out: string[] = [];
  try {
    for await (const entry of Deno.readDir(root)) {
      if (entry.name.startsWith(".") || !entry.isDirectory) continue;
      if (!manifest?.skills.includes(entry.name)) out.push(entry.name);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return out.sort();
}

export async function readRootState(
  root: InstallRoot,
  source: SkillsSource | undefined,
  repair: string[],
): Promise<RootState> {
  const { exists } = await inspectRoot(root);
  const manifest = exists ? await readManifest(root.path, repair) : undefined;
  const files: FileReport[] = [];
  if (manifest) {
    for (const [rel, sha] of Object.entries(manifest.files)) {
      let state = await fileState(root.path, rel, sha);
      if (source && state === "ok") {
        const wanted = source.files.get(rel);
        if (!wanted) state = "obsolete";
        else if (wanted.sha256 !== sha) state = "outdated";
      }
      files.push({ path: rel, state });
    }
    for (const rel of source?.files.keys() ?? []) {
      if (!(rel in manifest.files)) files.push({ path: rel, state: "not-installed" });
    }
  }
  const names = new Set([
    ...(manifest?.skills ?? []),
    ...(manifest ? source?.skills.map((s) => s.name) ?? [] : []),
  ]);
  const skills = [...names].sort().map((name) => {
    const own = files.filter((f) => f.path.startsWith(`${name}/`));
    const state = own.reduce<FileState>(
      (worst, f) => SEVERITY.indexOf(f.state) > SEVERITY.indexOf(worst) ? f.state : worst,
      "ok",
    );
    return { name, state };
  });
  return {
    scope: root.scope,
    dir: root.display,
    path: root.path,
    agents: root.agents,
    installed: Boolean(manifest),
    recordedAgents: manifest?.agents ?? [],
    version: manifest?.version ?? null,
    updatedAt: manifest?.updatedAt ?? null,
    skills,
    files: files.filter((f) => f.state !== "ok").sort((a, b) => a.path < b.path ? -1 : 1),
    foreign: exists ? await foreignSkills(root.path, manifest) : [],
  };
}

/** One file (or a whole folder) that differs from the source or the manifest. */
export interface Drift {
  scope: string;
  dir: string;
  agents: string[];
  /** A file (relative to the skills folder), or the folder itself for not-installed. */
  path: string;
  state: string;
}

/**
 * What `skills verify` and `doctor` call drift: every file that is not ok.
 * A folder with nothing installed is drift only when its agent was named.
 */
export function driftOf(state: RootState, explicitAgent: boolean): Drift[] {
  const base = { scope: state.scope, dir: state.dir, agents: state.agents };
  if (!state.installed) {
    return explicitAgent ? [{ ...base, path: ".", state: "not-installed" }] : [];
  }
  return state.files.map((f) => ({ ...base, path: f.path, state: f.state }));
}
