/**
 * Gemini CLI as the orchestrator: dispatch detects it from GEMINI_CLI and
 * answers invoke_agent (generalist), which the model calls unchanged; the
 * sub-agent ends with complete_task as its brief says, and the result comes
 * back inline. The sub-agent inherits the approval mode: yolo here.
 */
import { GEMINI } from "./support/hosts.ts";
import { orchestratorScenario } from "./support/orchestrator_flow.ts";

Deno.test(
  "gemini orchestrator: invoke_agent from dispatch, used unchanged; the sub-agent beats and completes; finalize",
  { sanitizeOps: false, sanitizeResources: false },
  () =>
    orchestratorScenario({
      host: GEMINI,
      ide: "gemini",
      args: ["--skip-trust", "--approval-mode", "yolo", "--output-format", "stream-json"],
      stdin: true,
    }),
);
