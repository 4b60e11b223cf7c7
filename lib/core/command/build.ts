/** What this build is: its version and whether it runs as a compiled binary. */

/** Kept equal to deno.json's "version" by a test. */
export const VERSION = "2.0.0";

/** True when running as a `deno compile`d binary rather than under `deno run`. */
export function isCompiled(): boolean {
  const name = Deno.execPath().split(/[\\/]/).pop() ?? "";
  return !name.toLowerCase().startsWith("deno");
}
