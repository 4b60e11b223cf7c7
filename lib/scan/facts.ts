/**
 * What the scan knows about a project before judging it: the bounded file
 * list, every package.json (root and workspace members) and the monorepo
 * configuration. Detectors read facts; they never walk the disk themselves.
 */
import { readProjectText, type WalkOptions, walkProject, type WalkResult } from "./walk.ts";

export interface PackageManifest {
  /** Project-relative folder of the manifest, "" for the root. */
  dir: string;
  /** Project-relative path of the package.json. */
  path: string;
  name: string | null;
  /** dependencies, devDependencies, peerDependencies and optionalDependencies together. */
  deps: Record<string, string>;
  /** Workspace globs the manifest declares (npm/yarn `workspaces`). */
  workspaces: string[];
  scripts: Record<string, string>;
}

export interface Monorepo {
  tool: string;
  evidence: string;
  /** Member package folders, project-relative. */
  packages: string[];
}

export interface DepHit {
  name: string;
  range: string;
  /** The package.json that declares it. */
  where: string;
}

export interface ProjectFacts {
  root: string;
  walk: WalkResult;
  files: ReadonlySet<string>;
  /** The root manifest first, then workspace members (or every nested package.json). */
  packages: PackageManifest[];
  monorepo: Monorepo | null;
  /** Problems worth a warning (an unparsable manifest), never fatal. */
  problems: string[];
  read(rel: string): Promise<string | undefined>;
}

function stringRecord(value: unknown): Record<string, string> {
  if (!value || typeof value !== "object" || Array.isArray(value)) return {};
  const out: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
    if (typeof entry === "string") out[key] = entry;
  }
  return out;
}

function workspaceGlobs(value: unknown): string[] {
  const list = Array.isArray(value)
    ? value
    : value && typeof value === "object"
    ? (value as Record<string, unknown>).packages
    : undefined;
  return Array.isArray(list) ? list.filter((v): v is string => typeof v === "string") : [];
}

export function parseManifest(path: string, text: string): PackageManifest | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!json || typeof json !== "object" || Array.isArray(json)) return undefined;
  const record = json as Record<string, unknown>;
  const slash = path.lastIndexOf("/");
  return {
    dir: slash === -1 ? "" : path.slice(0, slash),
    path,
    name: typeof record.name === "string" ? record.name : null,
    deps: {
      ...stringRecord(record.optionalDependencies),
      ...stringRecord(record.peerDependencies),
      ...stringRecord(record.devDependencies),
      ...stringRecord(record.dependencies),
    },
    workspaces: workspaceGlobs(record.workspaces),
    scripts: stringRecord(record.scripts),
  };
}

/** The `packages:` list of a pnpm-workspace.yaml (a small, line-based reader). */
export function pnpmWorkspaceGlobs(text: string): string[] {
  const globs: string[] = [];
  let inPackages = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\s+#.*$/, "");
    if (/^packages\s*:/.test(line)) {
      inPackages = true;
      const inline = /\[(.*)\]/.exec(line)?.[1];
      if (inline) globs.push(...inline.split(",").map(unquote).filter(Boolean));
      continue;
    }
    if (!inPackages) continue;
    const item = /^\s+-\s*(.+?)\s*$/.exec(line)?.[1];
    if (item) globs.push(unquote(item));
    else if (/^\S/.test(line)) inPackages = false;
  }
  return globs;
}

function unquote(value: string): string {
  return value.trim().replace(/^['"]|['"]$/g, "");
}

/** Turns a workspace glob (`apps/*`, `packages/**`) into a matcher for folders. */
export function globMatcher(glob: string): RegExp {
  const clean = glob.replace(/^\.\//, "").replace(/\/+$/, "");
  let source = "";
  for (let i = 0; i < clean.length; i++) {
    const c = clean[i];
    if (c === "*" && clean[i + 1] === "*") {
      source += ".*";
      i++;
    } else if (c === "*") source += "[^/]*";
    else source += c.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

async function monorepoConfig(
  root: PackageManifest | undefined,
  files: ReadonlySet<string>,
  read: (rel: string) => Promise<string | undefined>,
): Promise<{ tool: string; evidence: string; globs: string[] | null } | null> {
  if (files.has("pnpm-workspace.yaml")) {
    const text = await read("pnpm-workspace.yaml");
    return {
      tool: "pnpm workspaces",
      evidence: "pnpm-workspace.yaml",
      globs: pnpmWorkspaceGlobs(text ?? ""),
    };
  }
  if (root?.workspaces.length) {
    const tool = files.has("yarn.lock") ? "yarn workspaces" : "npm workspaces";
    return { tool, evidence: "package.json workspaces", globs: root.workspaces };
  }
  for (
    const [file, tool] of [
      ["lerna.json", "Lerna"],
      ["nx.json", "Nx"],
      ["turbo.json", "Turborepo"],
      ["rush.json", "Rush"],
    ] as const
  ) {
    if (!files.has(file)) continue;
    let globs: string[] | null = null;
    if (file === "lerna.json") {
      try {
        const parsed = JSON.parse((await read(file)) ?? "{}");
        if (Array.isArray(parsed.packages)) globs = parsed.packages.filter(String);
      } catch { /* a broken lerna.json still marks a monorepo */ }
    }
    return { tool, evidence: file, globs };
  }
  return null;
}

export async function gatherFacts(root: string, options: WalkOptions = {}): Promise<ProjectFacts> {
  const walk = await walkProject(root, options);
  const files = new Set(walk.files);
  const cache = new Map<string, Promise<string | undefined>>();
  const read = (rel: string) => {
    let hit = cache.get(rel);
    if (!hit) cache.set(rel, hit = readProjectText(root, rel));
    return hit;
  };
  const problems: string[] = [];
  const manifests: PackageManifest[] = [];
  for (const path of walk.files) {
    if (path !== "package.json" && !path.endsWith("/package.json")) continue;
    const text = await read(path);
    const manifest = text === undefined ? undefined : parseManifest(path, text);
    if (manifest) manifests.push(manifest);
    else problems.push(`${path} is not valid JSON; its dependencies were not read.`);
  }
  const rootManifest = manifests.find((m) => m.dir === "");
  const config = await monorepoConfig(rootManifest, files, read);
  let packages: PackageManifest[] = rootManifest ? [rootManifest] : [];
  let monorepo: Monorepo | null = null;
  if (config) {
    const include = (config.globs ?? []).filter((g) => !g.startsWith("!")).map(globMatcher);
    const exclude = (config.globs ?? []).filter((g) => g.startsWith("!")).map((g) =>
      globMatcher(g.slice(1))
    );
    const members = manifests.filter((m) =>
      m.dir !== "" &&
      (config.globs === null || include.some((re) => re.test(m.dir))) &&
      !exclude.some((re) => re.test(m.dir))
    );
    packages = [...packages, ...members];
    monorepo = {
      tool: config.tool,
      evidence: config.evidence,
      packages: members.map((m) => m.dir),
    };
  } else if (!rootManifest) {
    // No root manifest: nested apps (e.g. frontend/ next to backend/) still count.
    packages = manifests.filter((m) => m.dir.split("/").length <= 2);
  }
  return { root, walk, files, packages, monorepo, problems, read };
}

/** The first declaration of `name` across the project's manifests. */
export function findDep(facts: ProjectFacts, name: string): DepHit | undefined {
  for (const manifest of facts.packages) {
    const range = manifest.deps[name];
    if (range !== undefined) return { name, range, where: manifest.path };
  }
  return undefined;
}

/** Every dependency whose name starts with `prefix` (e.g. `@radix-ui/`). */
export function findDepPrefix(facts: ProjectFacts, prefix: string): DepHit | undefined {
  for (const manifest of facts.packages) {
    const name = Object.keys(manifest.deps).sort().find((d) => d.startsWith(prefix));
    if (name) return { name, range: manifest.deps[name], where: manifest.path };
  }
  return undefined;
}

/** The major version a range pins (`^4.24.0` -> 4), when it says one. */
export function majorOf(range: string): number | undefined {
  const cleaned = range.replace(/^(npm:[^@]+@|workspace:)/, "");
  const match = /(\d+)(?:\.\d+)*/.exec(cleaned);
  return match ? Number(match[1]) : undefined;
}

export function depEvidence(hit: DepHit): string {
  return `${hit.where}: ${hit.name}@${hit.range}`;
}

/** Files whose project-relative path matches, in walk order. */
export function filesMatching(facts: ProjectFacts, pattern: RegExp): string[] {
  return facts.walk.files.filter((f) => pattern.test(f));
}
