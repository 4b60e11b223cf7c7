/** Kept equal to deno.json's "version" by a test. */
export const VERSION = "2.0.0";
