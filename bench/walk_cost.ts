/**
 * The bytes an orchestrator reads for one feature, from the literal-agent
 * walk (tests/agent): it follows the peaks-code skill and the envelopes'
 * nextActions to `txt finalized`, and counts what every call printed and the
 * skill text it opened. The other walks (a bugfix, slices, the login case,
 * the session of three requests with a resume) are measured alongside.
 */
import { scenario, WALKS } from "../tests/agent/catalog.ts";
import { summarize, type WalkReport, walkScenario, walkSession } from "../tests/agent/walker.ts";
import { WalkFailure } from "../tests/agent/walk.ts";
import type { WalkCost } from "./report.ts";

/** A failure's first two lines (the call and what it answered), without the temporary project's path. */
function reason(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const [head, next] = text.split("\n");
  return (next ? `${head.slice(0, 140)} → ${next.slice(0, 160)}` : head.slice(0, 300))
    .replace(/\/\S*peaks-walk-[^/\s]*\/team-directory\/?/g, "");
}

async function others(): Promise<NonNullable<WalkCost["others"]>> {
  const out: NonNullable<WalkCost["others"]> = [];
  for (const name of WALKS.filter((w) => w !== "feature")) {
    try {
      const report = name === "session" ? await walkSession() : await walkScenario(scenario(name));
      const s = summarize(report);
      out.push({
        name,
        calls: s.orchestratorCalls,
        bytes: s.orchestratorBytes,
        skillBytes: report.skillBytes,
      });
    } catch (error) {
      // A failed walk's figures are those up to its failure.
      const partial = error instanceof WalkFailure ? error.partial as WalkReport : undefined;
      const s = partial && summarize(partial);
      out.push({
        name,
        calls: s?.orchestratorCalls ?? 0,
        bytes: s?.orchestratorBytes ?? 0,
        skillBytes: partial?.skillBytes ?? 0,
        failure: reason(error),
      });
    }
  }
  return out;
}

export async function walkCost(): Promise<WalkCost> {
  try {
    const report = await walkScenario(scenario("feature"));
    const s = summarize(report);
    return {
      orchestratorCalls: s.orchestratorCalls,
      orchestratorBytes: s.orchestratorBytes,
      subAgentCalls: s.subAgentCalls,
      subAgentBytes: s.subAgentBytes,
      skillBytes: report.skillBytes,
      others: await others(),
    };
  } catch (error) {
    return {
      orchestratorCalls: 0,
      orchestratorBytes: 0,
      subAgentCalls: 0,
      subAgentBytes: 0,
      failure: reason(error),
    };
  }
}
