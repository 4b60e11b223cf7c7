/**
 * OpenCode as the orchestrator: dispatch detects it from OPENCODE and
 * answers task (subagent_type general), which the model calls unchanged; the
 * result comes back inline in <task_result>.
 */
import { OPENCODE } from "./support/hosts.ts";
import { orchestratorScenario } from "./support/orchestrator_flow.ts";

Deno.test(
  "opencode orchestrator: task from dispatch, used unchanged; the sub-agent beats; finalize",
  { sanitizeOps: false, sanitizeResources: false },
  () =>
    orchestratorScenario({
      host: OPENCODE,
      ide: "opencode",
      args: ["run", "--format", "json"],
      stdin: false,
    }),
);
