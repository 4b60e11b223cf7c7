/**
 * The `.claude/rules/**` files: standards lists them (read-only) and upgrade
 * thins the ones peaks 1.x wrote. A rule file counts as peaks-written when it
 * carries peaks 1.x's fingerprints (its commands, its skill names, a peaks
 * marker); a user's own rule files never match and are never touched.
 */
import { join } from "../infra/std.ts";
import { isNotFound } from "../infra/errors.ts";
import type { Project } from "../workspace/project.ts";
import { displayPath } from "../workspace/paths.ts";
import { readProjectText } from "../scan/walk.ts";

export const THINNED_MARKER = "<!-- peaks:thinned";

const PEAKS_FINGERPRINT =
  /peaks progress|peaks-cli|peaks-solo|<!--\s*peaks[:\s]|\bpeaks (skill|workspace|standards|request|sub-agent|scan)\b/i;

export function isPeaksRule(text: string): boolean {
  return text.includes(THINNED_MARKER) || PEAKS_FINGERPRINT.test(text);
}

export interface RuleFile {
  /** Absolute path. */
  path: string;
  /** Path below .claude/rules/, forward slashes. */
  rel: string;
  text: string;
}

const MAX_RULE_FILES = 500;

/** Every regular file under .claude/rules/ (symlinks are not followed). */
export async function readRuleFiles(project: Project): Promise<RuleFile[] | null> {
  const base = join(project.root, ".claude", "rules");
  try {
    if (!(await Deno.lstat(base)).isDirectory) return null;
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
  const out: RuleFile[] = [];
  const queue: string[] = [""];
  while (queue.length && out.length < MAX_RULE_FILES) {
    const rel = queue.shift()!;
    const entries: Deno.DirEntry[] = [];
    for await (const entry of Deno.readDir(rel ? join(base, rel) : base)) entries.push(entry);
    entries.sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory) queue.push(child);
      else if (entry.isFile && out.length < MAX_RULE_FILES) {
        const text = await readProjectText(project.root, `.claude/rules/${child}`);
        if (text !== undefined) {
          out.push({ path: join(base, ...child.split("/")), rel: child, text });
        }
      }
    }
  }
  return out;
}

export interface RuleReport {
  path: string;
  status: "existing" | "missing";
  access: "read-only";
  peaksManaged: boolean;
}

export async function listClaudeRules(project: Project): Promise<RuleReport[]> {
  const files = await readRuleFiles(project);
  if (files === null) {
    return [{
      path: ".claude/rules/",
      status: "missing",
      access: "read-only",
      peaksManaged: false,
    }];
  }
  return files.map((f) => ({
    path: displayPath(project.root, f.path),
    status: "existing",
    access: "read-only",
    peaksManaged: isPeaksRule(f.text) && !f.text.includes(THINNED_MARKER),
  }));
}
