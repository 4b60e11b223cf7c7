/**
 * `deno task walk [feature|bugfix|sliced|docs]`: walks the requests (all four by default) and prints
 * calls and bytes per phase for the orchestrator and the sub-agents.
 */
import { scenario, SCENARIOS } from "./scenarios.ts";
import { formatSummary, walkScenario } from "./walker.ts";

const chosen = Deno.args.length ? Deno.args.map(scenario) : SCENARIOS;
let failed = false;
for (const s of chosen) {
  try {
    console.log(formatSummary(await walkScenario(s)));
  } catch (error) {
    failed = true;
    console.error(`${s.name}: ${error instanceof Error ? error.stack : error}`);
  }
}
if (failed) Deno.exit(1);
