/**
 * Turns a failed `deno compile` into a message that says what went wrong and
 * what to do, instead of Deno's error chain and backtrace.
 */
import { join } from "../lib/infra/std.ts";

export interface CompileFailure {
  target: string;
  /** deno compile's stdout and stderr. */
  output: string;
  denoVersion: string;
  denoDir: string;
  denortBin?: string;
  /** Every target of this build whose runtime is not in DENO_DIR yet. */
  missingRuntimes?: string[];
}

/** Deno's output without colours and without the backtrace it appends. */
export function cleanOutput(output: string): string {
  // deno-lint-ignore no-control-regex
  const plain = output.replace(/\x1b\[[0-9;]*m/g, "");
  return plain.replace(/\n*Stack backtrace:[\s\S]*$/, "").trim();
}

/** The innermost cause in Deno's "Caused by:" chain, e.g. "Connection refused (os error 111)". */
function innermostCause(text: string): string | undefined {
  const causes = text.split("\n").map((line) => line.match(/^\s*\d+: (.+)$/)?.[1]).filter(
    (cause): cause is string => cause !== undefined,
  );
  return causes.at(-1);
}

/** Where deno compile keeps the runtime it downloaded for a target. */
export function runtimeCachePath(denoDir: string, denoVersion: string, target: string): string {
  return join(denoDir, "dl", "release", `v${denoVersion}`, `denort-${target}.zip`);
}

export function explainCompileFailure(failure: CompileFailure): string {
  const text = cleanOutput(failure.output);
  const { target, denoVersion } = failure;
  if (failure.denortBin && /denort|Invalid object|Failed to parse|Not an? /i.test(text)) {
    return [
      `deno compile could not use DENORT_BIN=${failure.denortBin} for ${target}: ` +
      (innermostCause(text) ?? text),
      `DENORT_BIN must name the unzipped denort executable of Deno ${denoVersion} for ${target}` +
      " (it is used for whatever --target asks, so build one target per run), or be unset.",
    ].join("\n");
  }
  if (/Setting up base binary|denort-[\w-]+\.zip|dl\.deno\.land/.test(text)) {
    const url = `https://dl.deno.land/release/v${denoVersion}/denort-${target}.zip`;
    const missing = failure.missingRuntimes?.length ? failure.missingRuntimes : [target];
    const copies = missing.map((t) => `      ${runtimeCachePath(failure.denoDir, denoVersion, t)}`);
    return [
      `deno compile could not get Deno's runtime for ${target}.`,
      "",
      "A compiled peaks is Deno's runtime (denort) with the program and the skills appended.",
      "deno compile downloads that runtime once per Deno version and target, from",
      `  ${url}`,
      `and keeps it in DENO_DIR; building for another platform fetches that platform's runtime.`,
      `The download failed: ${innermostCause(text) ?? "see deno compile's output"}.`,
      "",
      "To build without network access, do one of:",
      `  - copy the runtime zips of Deno ${denoVersion} from a machine that can download them to`,
      ...copies,
      "    or set DENO_DIR to a cache that already holds them;",
      "  - unzip one and set DENORT_BIN to the denort executable inside (DENORT_BIN serves",
      "    whatever --target asks, so build only that zip's target in that run).",
      'docs/distribution.md ("Building offline") has the details.',
    ].join("\n");
  }
  return `deno compile failed for ${target}:\n${text}`;
}
