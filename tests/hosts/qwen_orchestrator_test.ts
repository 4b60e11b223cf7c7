/**
 * Qwen Code as the orchestrator: dispatch detects it from QWEN_CODE and
 * answers agent (general-purpose, in the foreground), which the model calls
 * unchanged. Headless, the agent tool needs auto-edit or yolo.
 */
import { QWEN } from "./support/hosts.ts";
import { orchestratorScenario } from "./support/orchestrator_flow.ts";

Deno.test(
  "qwen orchestrator: agent from dispatch, used unchanged; the sub-agent beats; finalize",
  { sanitizeOps: false, sanitizeResources: false },
  () =>
    orchestratorScenario({
      host: QWEN,
      ide: "qwen",
      args: ["--auth-type", "openai", "--approval-mode", "yolo", "--output-format", "stream-json"],
      stdin: true,
    }),
);
