/**
 * The bytes an orchestrator reads for one feature, from the literal-agent
 * walk (tests/agent): it follows the peaks-code skill and the envelopes'
 * nextActions to `txt finalized`, and counts what every call printed.
 */
import { scenario } from "../tests/agent/scenarios.ts";
import { summarize, walkScenario } from "../tests/agent/walker.ts";
import type { WalkCost } from "./report.ts";

export async function walkCost(): Promise<WalkCost> {
  try {
    const s = summarize(await walkScenario(scenario("feature")));
    return {
      orchestratorCalls: s.orchestratorCalls,
      orchestratorBytes: s.orchestratorBytes,
      subAgentCalls: s.subAgentCalls,
      subAgentBytes: s.subAgentBytes,
    };
  } catch (error) {
    const failure = error instanceof Error ? error.message : String(error);
    return {
      orchestratorCalls: 0,
      orchestratorBytes: 0,
      subAgentCalls: 0,
      subAgentBytes: 0,
      failure,
    };
  }
}
