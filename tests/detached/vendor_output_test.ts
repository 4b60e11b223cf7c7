/**
 * Reading the outcome from each vendor's structured output, on lines shaped
 * like the pinned CLIs print them (observed against a stand-in model API;
 * docs/hosts.md): refusals, the vendor's own errors with their HTTP status,
 * login problems, and the final message the return JSON is taken from.
 */
import { assertEquals } from "@std/assert";
import type { Vendor } from "../../lib/hosts/vendors.ts";
import { VendorOutput } from "../../lib/detached/vendor_output.ts";

function read(vendor: Vendor, stdout: string, stderr = "", split = 7) {
  const output = new VendorOutput(vendor);
  const bytes = new TextEncoder().encode(stdout);
  // Chunks cut anywhere, as pipes deliver them.
  for (let i = 0; i < bytes.length; i += split) output.stdout(bytes.subarray(i, i + split));
  output.stderr(new TextEncoder().encode(stderr));
  return { report: output.report(), tail: output.stderrTail(), auth: output.stderrMentionsAuth() };
}

const lines = (...events: unknown[]) => events.map((e) => JSON.stringify(e)).join("\n") + "\n";

Deno.test("claude: permission_denials are refusals; is_error with api_error_status is an API error", () => {
  const denied = read(
    "claude",
    lines({
      type: "result",
      subtype: "success",
      is_error: false,
      result: "Could not do it.",
      permission_denials: [{ tool_name: "Bash", tool_input: { command: "touch made.txt" } }],
    }),
  );
  assertEquals(denied.report.refusals, ["Bash: touch made.txt"]);
  assertEquals([denied.report.failed, denied.report.finalText], [false, "Could not do it."]);

  const failed = read(
    "claude",
    lines({
      type: "result",
      subtype: "success",
      is_error: true,
      api_error_status: 500,
      result: "API Error: 500 overloaded",
      permission_denials: [],
    }),
  );
  assertEquals([failed.report.failed, failed.report.httpStatus, failed.report.auth], [
    true,
    500,
    false,
  ]);

  const noKey = read(
    "claude",
    lines({
      type: "result",
      is_error: true,
      api_error_status: null,
      result: "Not logged in · Please run /login",
    }),
  );
  assertEquals([noKey.report.failed, noKey.report.auth], [true, true]);
});

Deno.test("codex: turn.failed is an error with its status; a sandbox-refused or declined command is a refusal", () => {
  const failed = read(
    "codex",
    lines(
      { type: "thread.started", thread_id: "t" },
      {
        type: "item.completed",
        item: { id: "i0", type: "error", message: "Model metadata not found" },
      },
      { type: "error", message: "unexpected status 401 Unauthorized: bad key" },
      { type: "turn.failed", error: { message: "unexpected status 401 Unauthorized: bad key" } },
    ),
  );
  assertEquals(failed.report.errors, [
    "unexpected status 401 Unauthorized: bad key",
  ]);
  assertEquals([failed.report.failed, failed.report.httpStatus, failed.report.auth], [
    true,
    401,
    true,
  ]);

  const refused = read(
    "codex",
    lines(
      {
        type: "item.completed",
        item: {
          type: "command_execution",
          command: "/bin/bash -lc 'echo hi > new.txt'",
          aggregated_output: "/bin/bash: line 1: new.txt: Read-only file system\n",
          exit_code: 1,
          status: "failed",
        },
      },
      {
        type: "item.completed",
        item: {
          type: "command_execution",
          command: "false",
          aggregated_output: "",
          status: "failed",
        },
      },
      {
        // Declined by codex's policy before it ran: no output, no exit code.
        type: "item.completed",
        item: {
          type: "command_execution",
          command: "/bin/bash -lc 'rm -rf build'",
          aggregated_output: "",
          exit_code: null,
          status: "declined",
        },
      },
      { type: "item.completed", item: { type: "agent_message", text: "All done." } },
      { type: "turn.completed", usage: {} },
    ),
  );
  assertEquals(refused.report.refusals, [
    "exec_command: /bin/bash -lc 'echo hi > new.txt'",
    "exec_command: /bin/bash -lc 'rm -rf build'",
  ]);
  assertEquals([refused.report.failed, refused.report.finalText], [false, "All done."]);
});

Deno.test("gemini: policy refusals and withheld tools; streamed message deltas; a JSON error on stderr", () => {
  const run = read(
    "gemini",
    lines(
      { type: "init", session_id: "s" },
      {
        type: "tool_use",
        tool_name: "run_shell_command",
        tool_id: "a",
        parameters: { command: "echo hi > x" },
      },
      {
        type: "tool_use",
        tool_name: "write_file",
        tool_id: "b",
        parameters: { file_path: "/p/x.txt" },
      },
      { type: "tool_use", tool_name: "no_such_tool", tool_id: "c", parameters: {} },
      {
        type: "tool_result",
        tool_id: "a",
        status: "error",
        error: { type: "policy_violation", message: "Tool execution denied by policy." },
      },
      {
        type: "tool_result",
        tool_id: "b",
        status: "error",
        error: { type: "tool_not_registered" },
      },
      {
        type: "tool_result",
        tool_id: "c",
        status: "error",
        error: { type: "tool_not_registered" },
      },
      { type: "message", role: "assistant", content: "Done: ", delta: true },
      { type: "message", role: "assistant", content: '{"role":"rd"}', delta: true },
      { type: "result", status: "success", stats: {} },
    ),
  );
  assertEquals(run.report.refusals, ["run_shell_command: echo hi > x", "write_file: /p/x.txt"]);
  assertEquals([run.report.failed, run.report.finalText], [false, 'Done: {"role":"rd"}']);

  const apiError = read(
    "gemini",
    lines({
      type: "result",
      status: "error",
      error: { type: "unknown", message: '[API Error: {"error":{"code":500,"message":"boom"}}]' },
    }),
  );
  assertEquals([apiError.report.failed, apiError.report.httpStatus], [true, 500]);

  const early = read(
    "gemini",
    "",
    [
      "Warning: something",
      "{",
      '  "session_id": "s",',
      '  "error": { "type": "Error", "message": "bad gateway", "code": 502 }',
      "}",
    ].join("\n"),
  );
  assertEquals([early.report.failed, early.report.httpStatus, early.report.errors], [true, 502, [
    "bad gateway",
  ]]);

  const noKey = read(
    "gemini",
    "",
    "When using Gemini API, you must specify the GEMINI_API_KEY environment variable.",
  );
  assertEquals([noKey.report.failed, noKey.auth], [false, true]);
  assertEquals(
    noKey.tail,
    "When using Gemini API, you must specify the GEMINI_API_KEY environment variable.",
  );
});

Deno.test("opencode and copilot: refused tool calls, errors with status, the final text", () => {
  const opencode = read(
    "opencode",
    lines(
      {
        type: "tool_use",
        part: {
          tool: "bash",
          state: {
            status: "error",
            input: { command: "git commit -m x" },
            error:
              "The user has specified a rule which prevents you from using this specific tool call.",
          },
        },
      },
      {
        type: "tool_use",
        part: {
          tool: "invalid",
          state: {
            status: "completed",
            input: {
              tool: "write",
              error: "Model tried to call unavailable tool 'write'. Available tools: bash.",
            },
          },
        },
      },
      { type: "text", part: { text: "Finished." } },
      {
        type: "error",
        error: { name: "APIError", data: { message: "overloaded", statusCode: 529 } },
      },
    ),
  );
  assertEquals(opencode.report.refusals, [
    "bash: git commit -m x",
    "write: not offered under this posture",
  ]);
  assertEquals([opencode.report.failed, opencode.report.httpStatus, opencode.report.finalText], [
    true,
    529,
    "Finished.",
  ]);

  const copilot = read(
    "copilot",
    lines(
      {
        type: "tool.execution_start",
        data: { toolCallId: "t1", toolName: "bash", arguments: { command: "rm -rf x" } },
      },
      {
        type: "tool.execution_complete",
        data: { toolCallId: "t1", success: false, error: { code: "denied" } },
      },
      { type: "assistant.message", data: { content: "All done." } },
      { type: "result", data: null },
    ),
  );
  assertEquals(copilot.report.refusals, ["bash: rm -rf x"]);
  assertEquals([copilot.report.failed, copilot.report.finalText], [false, "All done."]);
});

Deno.test("text that is not JSON, and an over-long line, are skipped without harm", () => {
  const output = new VendorOutput("codex");
  output.stdout(new TextEncoder().encode("plain text\n{not json\n"));
  output.stdout(new Uint8Array(9 * 1024 * 1024).fill(0x78));
  output.stdout(new TextEncoder().encode('\n{"type":"turn.failed","error":{"message":"x"}}\n'));
  const report = output.report();
  assertEquals([report.failed, report.errors], [true, ["x"]]);
});
