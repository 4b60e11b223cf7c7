/**
 * Copilot CLI as the orchestrator: dispatch detects it from COPILOT_CLI and
 * answers task (general-purpose, named, sync), which the model calls
 * unchanged; the sub-agent inherits the allow rules for peaks and writes.
 */
import { COPILOT } from "./support/hosts.ts";
import { orchestratorScenario } from "./support/orchestrator_flow.ts";

Deno.test(
  "copilot orchestrator: task from dispatch, used unchanged; the sub-agent beats; finalize",
  { sanitizeOps: false, sanitizeResources: false },
  () =>
    orchestratorScenario({
      host: COPILOT,
      ide: "copilot",
      args: ["--output-format", "json", "--allow-tool", "shell(peaks:*)", "--allow-tool", "write"],
      stdin: true,
    }),
);
