/**
 * peaks: workflow primitives for LLM coding agents.
 * Global flags, the command table, errors to envelopes, the exit code.
 */
import { main } from "./lib/cli/main.ts";
import { processCtx } from "./lib/cli/runtime.ts";

if (import.meta.main) {
  const code = await main(Deno.args, processCtx());
  Deno.exit(code);
}
