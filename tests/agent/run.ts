/**
 * `deno task walk [name…]`: the walks (every one of WALKS by default: the single requests, the
 * login case, the session of three requests with a resume) with calls and bytes per phase for the
 * orchestrator and the sub-agents. A walk on EXPECTED_FAILURES that fails is reported, not fatal;
 * one that passes is reported so the entry can go.
 */
import { EXPECTED_FAILURES, scenario, WALKS } from "./catalog.ts";
import { formatSummary, type WalkReport, walkScenario, walkSession } from "./walker.ts";
import { WalkFailure } from "./walk.ts";

const chosen = Deno.args.length ? Deno.args : WALKS;
let failed = false;
for (const name of chosen) {
  const pending = EXPECTED_FAILURES[name];
  try {
    const report = name === "session" ? await walkSession() : await walkScenario(scenario(name));
    console.log(formatSummary(report));
    if (pending) console.log(`${name}: passes; take it off EXPECTED_FAILURES (${pending})`);
  } catch (error) {
    if (error instanceof WalkFailure && error.partial) {
      console.log(`${formatSummary(error.partial as WalkReport)}\n  (up to the failure below)`);
    }
    const text = error instanceof Error ? (pending ? error.message : error.stack) : String(error);
    if (pending) {
      console.log(`${name}: expected failure (${pending})\n  ${text}`);
      continue;
    }
    failed = true;
    console.error(`${name}: ${text}`);
  }
}
if (failed) Deno.exit(1);
