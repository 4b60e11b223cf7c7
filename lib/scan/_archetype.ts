/**
 * The archetype rules: from what the detectors found to one of the spec's
 * archetypes, a confidence, the signals behind it and whether the project is
 * frontend-only. Pure: no disk access, so unit tests can feed it cases.
 */
import type { Archetype } from "./result.ts";
import type { Monorepo } from "./facts.ts";
import type { Finding, StackFindings } from "./_stack_js.ts";
import type { LegacyFinding } from "./_legacy.ts";

/** At or above this many source files a codebase has conventions of its own. */
export const ESTABLISHED_SOURCE_FILES = 300;
/** A lockfile untouched this long suggests an older codebase. */
export const OLD_LOCKFILE_DAYS = 3 * 365;

export interface ArchetypeInput {
  stack: StackFindings;
  /** Non-JS services, e.g. "Python (pyproject.toml)". */
  services: string[];
  legacy: LegacyFinding[];
  monorepo: Monorepo | null;
  sourceFiles: number;
  /** Files with a frontend extension (.jsx .tsx .vue .svelte) even without a framework dep. */
  frontendFiles: string[];
  /** Folders that hold server code (server/, backend/, api/, src/server/). */
  serverDirs: string[];
  /** swagger/openapi/proto files: recorded, but not enough on their own to mean a backend. */
  apiContracts: string[];
  lockfile: { path: string; ageDays: number } | null;
  /** Nothing at all to look at (no manifest, no source). */
  empty: boolean;
}

export interface ArchetypeVerdict {
  archetype: Archetype;
  confidence: number;
  signals: string[];
  frontendOnly: boolean;
  frontendOnlyReason: string;
}

function describe(findings: Finding[] | undefined): string {
  return (findings ?? []).map((f) => `${f.value} (${f.evidence[0]})`).join(", ");
}

function round(value: number): number {
  return Math.round(Math.min(0.95, Math.max(0.1, value)) * 100) / 100;
}

/** What the stack says about the two sides of the project. */
interface Sides {
  frontendFindings: Finding[];
  hasFrontend: boolean;
  backendParts: string[];
  hasBackend: boolean;
}

function sidesOf(input: ArchetypeInput): Sides {
  const { stack } = input;
  const frontendFindings = [...(stack.framework ?? []), ...(stack.componentLibrary ?? [])];
  const backendEvidence = (stack.backend ?? []).flatMap((f) => f.evidence).join("\n");
  const backendParts = [
    ...(stack.backend ?? []).map((f) => `${f.value} (${f.evidence[0]})`),
    // A service whose framework was already named is not listed twice.
    ...input.services.filter((s) => !backendEvidence.includes(/\((.*)\)$/.exec(s)?.[1] ?? s))
      .map((s) => `${s} service`),
    ...input.serverDirs.map((d) => `server code in ${d}/`),
  ];
  return {
    frontendFindings,
    hasFrontend: frontendFindings.length > 0 || input.frontendFiles.length > 0,
    backendParts,
    hasBackend: backendParts.length > 0,
  };
}

/** The evidence, one line each, in the order the report shows it. */
function signalsOf(input: ArchetypeInput, sides: Sides, oldLockfile: boolean): string[] {
  const signals: string[] = [];
  const { monorepo } = input;
  if (monorepo) {
    signals.push(
      `monorepo: ${monorepo.tool} (${monorepo.evidence}), ${monorepo.packages.length} package(s)${
        monorepo.packages.length ? `: ${monorepo.packages.slice(0, 6).join(", ")}` : ""
      }`,
    );
  }
  if (sides.frontendFindings.length) {
    signals.push(`frontend: ${describe(sides.frontendFindings)}`);
  } else if (input.frontendFiles.length) {
    signals.push(`frontend files: ${input.frontendFiles.slice(0, 3).join(", ")}`);
  }
  if (sides.hasBackend) signals.push(`backend: ${sides.backendParts.join(", ")}`);
  if (input.apiContracts.length) {
    signals.push(`API contracts (not counted as a backend): ${input.apiContracts.join(", ")}`);
  }
  for (const item of input.legacy) signals.push(`legacy (${item.strength}): ${item.summary}`);
  const established = input.sourceFiles >= ESTABLISHED_SOURCE_FILES;
  signals.push(
    `size: ${input.sourceFiles} source file${input.sourceFiles === 1 ? "" : "s"}${
      established ? ` (established codebase, >= ${ESTABLISHED_SOURCE_FILES})` : ""
    }`,
  );
  if (input.lockfile) {
    signals.push(
      `lockfile: ${input.lockfile.path} last changed ${input.lockfile.ageDays} day(s) ago${
        oldLockfile ? " (old)" : ""
      }`,
    );
  }
  return signals;
}

function frontendOnlyReason(input: ArchetypeInput, sides: Sides): string {
  const { stack } = input;
  const frontendName = describe(stack.framework) || describe(stack.componentLibrary) ||
    "frontend files";
  if (sides.hasFrontend && !sides.hasBackend) {
    return `Frontend only: ${frontendName}; no backend framework, API routes, server folder or non-JS service found.`;
  }
  if (sides.hasBackend) {
    return `Not frontend-only: backend found (${sides.backendParts.join(", ")}).`;
  }
  return input.empty
    ? "Not frontend-only: the project is empty, nothing to judge yet."
    : "Not frontend-only: no frontend framework or frontend files found.";
}

export function decideArchetype(input: ArchetypeInput): ArchetypeVerdict {
  const sides = sidesOf(input);
  const { hasFrontend, hasBackend } = sides;
  const oldLockfile = input.lockfile !== null && input.lockfile.ageDays >= OLD_LOCKFILE_DAYS;
  const signals = signalsOf(input, sides, oldLockfile);
  const verdict = (archetype: Archetype, confidence: number): ArchetypeVerdict => ({
    archetype,
    confidence: round(confidence),
    signals,
    frontendOnly: hasFrontend && !hasBackend,
    frontendOnlyReason: frontendOnlyReason(input, sides),
  });
  if (input.monorepo) {
    if (hasBackend) return verdict("fullstack-monorepo", 0.9);
    if (hasFrontend) return verdict("frontend-monorepo", 0.9);
    signals.push("monorepo without a recognised frontend or backend");
    return verdict("unknown", 0.4);
  }
  if (input.empty) {
    signals.push("empty project: no manifest and no source files");
    return verdict("greenfield", 0.5);
  }
  if (!hasFrontend && !hasBackend) {
    signals.push("no frontend framework, backend framework or service manifest recognised");
    return verdict("unknown", 0.3);
  }
  const strong = input.legacy.filter((l) => l.strength === "strong");
  const weak = input.legacy.filter((l) => l.strength === "weak");
  const established = input.sourceFiles >= ESTABLISHED_SOURCE_FILES;
  const legacy = strong.length > 0 || weak.length + (oldLockfile ? 1 : 0) >= 2 || established;
  if (legacy) {
    const confidence = 0.6 + 0.1 * strong.length + 0.05 * weak.length +
      (established ? 0.1 : 0) + (oldLockfile ? 0.05 : 0);
    return verdict(hasBackend ? "legacy-fullstack" : "legacy-frontend", confidence);
  }
  return verdict("greenfield", input.sourceFiles < 50 ? 0.85 : 0.7);
}

/** Frontend and backend labels for the report, joined per field. */
export function joinFindings(findings: Finding[] | undefined): string | null {
  if (!findings?.length) return null;
  return findings.map((f) => f.value).join(" + ");
}
