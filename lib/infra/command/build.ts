/** What this build is: its version and whether it runs as a compiled binary. */

/** Kept equal to deno.json's "version" by a test. */
export const VERSION = "2.0.0";

/**
 * The V8 flags of every peaks process: baked into the binary by `deno compile`
 * and passed by every `deno run` of peaks.ts (tests, bench, the clone install,
 * peaks starting itself). A young generation of 4 MB from the start lets a hot
 * command finish without a garbage collection; with V8's default, each call
 * paid one or two scavenges of 3-4 ms on a 2-core machine. `--no-lazy`
 * compiles every function of a module when the module is compiled: Deno
 * writes a module's code cache right after that compile, so with V8's lazy
 * default the cache held only the top level and every function a call ran was
 * compiled again in every process (about 8 ms of a dispatch's 25 ms of work).
 * Without a code cache (a first run) eager compiling costs no more than lazy.
 */
export const V8_FLAGS = "--v8-flags=--min-semi-space-size=4,--no-lazy";

/** True when running as a `deno compile`d binary rather than under `deno run`. */
export function isCompiled(): boolean {
  const name = Deno.execPath().split(/[\\/]/).pop() ?? "";
  return !name.toLowerCase().startsWith("deno");
}
