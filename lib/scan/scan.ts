/**
 * The scan: facts -> stack, legacy constraints, archetype -> one
 * ScanResult (the shape other features read from project-scan.json).
 */
import { join } from "../infra/std.ts";
import { type ScanResult, scanResultSchemas } from "../state/scan_result.ts";
import { z } from "../infra/zod.ts";
import { filesMatching, gatherFacts, type ProjectFacts } from "./facts.ts";
import type { WalkOptions } from "./walk.ts";
import { detectJsStack, type StackField, type StackFindings } from "./_stack_js.ts";
import { detectOtherStacks } from "./_stack_other.ts";
import { detectLegacy, type LegacyFinding } from "./_legacy.ts";
import { decideArchetype, joinFindings } from "./_archetype.ts";
import { isoTime } from "../infra/ids.ts";

export interface ScanOutcome {
  result: ScanResult;
  facts: ProjectFacts;
  legacy: LegacyFinding[];
  /** Problems worth a warning (unparsable manifests, a truncated walk). */
  problems: string[];
}

const SOURCE_FILE = /\.(jsx?|tsx?|mjs|cjs|vue|svelte|py|go|rs|java|kt|php|rb)$/;
const FRONTEND_FILE = /\.(jsx|tsx|vue|svelte)$/;
/** A static front end: an index page at the root or in the usual web folders. */
const STATIC_PAGE = /^((public|static|www|web|client|src)\/)?index\.html?$/;
const LOCKFILES = [
  "pnpm-lock.yaml",
  "yarn.lock",
  "package-lock.json",
  "bun.lockb",
  "poetry.lock",
  "uv.lock",
  "Cargo.lock",
  "go.sum",
];
const FIELDS: StackField[] = [
  "language",
  "framework",
  "componentLibrary",
  "css",
  "buildTool",
  "stateManagement",
  "routing",
  "testRunner",
  "backend",
];

function merge(first: StackFindings, second: StackFindings): StackFindings {
  const out: StackFindings = {};
  for (const field of FIELDS) {
    const list = [...(first[field] ?? []), ...(second[field] ?? [])];
    if (list.length) out[field] = list;
  }
  return out;
}

async function lockfileAge(
  facts: ProjectFacts,
  now: Date,
): Promise<{ path: string; ageDays: number } | null> {
  for (const name of LOCKFILES) {
    if (!facts.files.has(name)) continue;
    try {
      const info = await Deno.lstat(join(facts.root, name));
      if (!info.mtime) continue;
      const ageDays = Math.max(0, Math.floor((now.getTime() - info.mtime.getTime()) / 86_400_000));
      return { path: name, ageDays };
    } catch {
      continue;
    }
  }
  return null;
}

const EXTENSION_LANGUAGES: [RegExp, string][] = [
  [/\.py$/, "Python"],
  [/\.go$/, "Go"],
  [/\.rs$/, "Rust"],
  [/\.java$/, "Java"],
  [/\.kt$/, "Kotlin"],
  [/\.php$/, "PHP"],
  [/\.rb$/, "Ruby"],
];

/** Without any manifest, the most common source extension still names the language. */
function languageByExtension(facts: ProjectFacts): StackFindings["language"] {
  let best: { label: string; files: string[] } | undefined;
  for (const [pattern, label] of EXTENSION_LANGUAGES) {
    const files = filesMatching(facts, pattern);
    if (files.length && (!best || files.length > best.files.length)) best = { label, files };
  }
  if (!best) return undefined;
  return [{ value: best.label, evidence: [`${best.files.length} files such as ${best.files[0]}`] }];
}

function serverDirs(facts: ProjectFacts): string[] {
  return facts.walk.dirs.filter((dir) =>
    /^(server|backend|api|src\/server)$/.test(dir) &&
    facts.walk.files.some((f) => f.startsWith(`${dir}/`) && SOURCE_FILE.test(f))
  );
}

/** A truncated walk, said in words: the result may miss parts of the project. */
function truncation(facts: ProjectFacts): string[] {
  if (!facts.walk.truncated) return [];
  const { truncatedBy, maxFiles, maxDepth } = facts.walk;
  const why = truncatedBy === "files"
    ? `it reached --max-files ${maxFiles}`
    : truncatedBy === "depth"
    ? `folders deeper than --max-depth ${maxDepth} were not read`
    : "it ran out of its time budget";
  return [
    `The walk is truncated: ${why} (${facts.walk.files.length} files read); the result may miss parts of the project.`,
  ];
}

export async function scanProject(
  root: string,
  now: Date,
  options: WalkOptions = {},
): Promise<ScanOutcome> {
  const facts = await gatherFacts(root, options);
  const [js, other, legacy, lockfile] = await Promise.all([
    detectJsStack(facts),
    detectOtherStacks(facts),
    detectLegacy(facts),
    lockfileAge(facts, now),
  ]);
  const stack = merge(js, other.findings);
  stack.language ??= languageByExtension(facts);
  const sourceFiles = filesMatching(facts, SOURCE_FILE).length;
  const verdict = decideArchetype({
    stack,
    services: other.services,
    legacy,
    monorepo: facts.monorepo,
    sourceFiles,
    frontendFiles: [
      ...filesMatching(facts, FRONTEND_FILE).filter((f) => !/\.(test|spec)\./.test(f)),
      ...filesMatching(facts, STATIC_PAGE),
    ],
    serverDirs: serverDirs(facts),
    apiContracts: filesMatching(facts, /(^|\/)(swagger|openapi)[^/]*\.(json|ya?ml)$|\.proto$/)
      .slice(0, 3),
    lockfile,
    empty: facts.packages.length === 0 && other.services.length === 0 && sourceFiles === 0,
  });
  const evidence: Record<string, string[]> = {};
  for (const field of FIELDS) {
    const list = stack[field];
    if (list?.length) evidence[field] = list.flatMap((f) => f.evidence);
  }
  const problems = [...facts.problems, ...truncation(facts)];
  const result = scanResultSchemas(z).ScanResultSchema.parse({
    version: 1,
    scannedAt: isoTime(now),
    archetype: verdict.archetype,
    confidence: verdict.confidence,
    signals: verdict.signals,
    frontendOnly: verdict.frontendOnly,
    frontendOnlyReason: verdict.frontendOnlyReason,
    stack: {
      language: joinFindings(stack.language),
      componentLibrary: joinFindings(stack.componentLibrary),
      css: joinFindings(stack.css),
      buildTool: joinFindings(stack.buildTool),
      stateManagement: joinFindings(stack.stateManagement),
      routing: joinFindings(stack.routing),
      testRunner: joinFindings(stack.testRunner),
      framework: joinFindings(stack.framework),
      backend: joinFindings(stack.backend),
    },
    legacyConstraints: legacy.map((l) => l.summary),
    legacy: legacy.map(({ id, summary, rule, evidence }) => ({ id, summary, rule, evidence })),
    languages: (stack.language ?? []).map((f) => f.value),
    evidence,
    monorepo: facts.monorepo
      ? { tool: facts.monorepo.tool, packages: facts.monorepo.packages }
      : null,
    walk: {
      files: facts.walk.files.length,
      truncated: facts.walk.truncated,
      truncatedBy: facts.walk.truncatedBy,
      maxFiles: facts.walk.maxFiles,
      maxDepth: facts.walk.maxDepth,
    },
  });
  return { result, facts, legacy, problems };
}
