/**
 * Reads a vendor's structured output as it streams (one JSON document per
 * line on stdout; a bounded tail of stderr) and keeps what decides the
 * run's outcome: refused tool calls, the vendor's own errors (API status,
 * login), and the agent's final message. The formats, as the pinned CLIs
 * print them (docs/hosts.md):
 *
 * - claude `-p --output-format json`: one `result` object with `is_error`,
 *   `api_error_status`, `permission_denials` and `result`.
 * - codex `exec --json`: JSONL events; `turn.failed` / `error`, items of type
 *   `agent_message` and `command_execution` (a sandbox refusal is a failed
 *   command whose output says so).
 * - gemini `--output-format stream-json`: `tool_use` / `tool_result` (a
 *   refusal is `error.type: policy_violation`), assistant `message` deltas,
 *   and a `result` with `status: error`; early failures print one JSON error
 *   object on stderr.
 * - opencode `run --format json`: `tool_use` parts whose state is an error
 *   naming a permission rule, `text` parts, `error` events.
 * - copilot `--output-format json`: `tool.execution_complete` with
 *   `error.code: denied`, `assistant.message`, error events.
 */
import type { Vendor } from "../hosts/vendors.ts";

export interface VendorReport {
  /** Refused tool calls, each as `<tool>: <what it tried>`. */
  refusals: string[];
  /** The vendor's own error messages, oldest first, without repeats. */
  errors: string[];
  /** The vendor said the run failed (claude is_error, codex turn.failed, a result in error). */
  failed: boolean;
  /** The HTTP status of the model API, when the vendor names one. */
  httpStatus: number | null;
  /** The failure is about credentials (no key, not logged in, 401/403). */
  auth: boolean;
  /** The agent's final message. */
  finalText: string | null;
}

const MAX_LINE = 8 * 1024 * 1024;
const STDERR_TAIL = 16 * 1024;
const MAX_ITEMS = 20;
const SANDBOX_DENIAL = /read-only file system|operation not permitted|permission denied|sandbox/i;
const AUTH =
  /not logged in|\blog ?in\b|authenticat|unauthori[sz]ed|api[_ ]?key|credential|\b40[13]\b/i;

/** Gemini CLI tools its approval modes withhold (edits, the shell, web fetches). */
const GEMINI_WITHHELD = new Set(["write_file", "replace", "run_shell_command", "web_fetch"]);

// deno-lint-ignore no-explicit-any
type Json = any;

function short(value: unknown, max = 160): string {
  const text = typeof value === "string" ? value : JSON.stringify(value) ?? "";
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function what(input: Json): string {
  if (input && typeof input === "object") {
    for (const key of ["command", "cmd", "file_path", "path", "filePath", "url"]) {
      if (typeof input[key] === "string") return short(input[key]);
    }
  }
  return short(input);
}

function statusIn(text: string): number | null {
  const match = text.match(
    /(?:status(?: code)?|HTTP|API Error:|"code":)\s*"?(\d{3})\b|\b(\d{3}) (?:Unauthorized|Forbidden|Internal Server Error|Service Unavailable|Bad Gateway|Too Many Requests)/i,
  );
  const code = Number(match?.[1] ?? match?.[2]);
  return code >= 400 && code <= 599 ? code : null;
}

export class VendorOutput {
  #vendor: Vendor;
  #decoders = { out: new TextDecoder(), err: new TextDecoder() };
  #partial = "";
  #dropping = false;
  #stderr = "";
  #report: VendorReport = {
    refusals: [],
    errors: [],
    failed: false,
    httpStatus: null,
    auth: false,
    finalText: null,
  };
  /** Tool calls by id, so a refusal reported later can name what was tried. */
  #calls = new Map<string, string>();
  #text = "";

  constructor(vendor: Vendor) {
    this.#vendor = vendor;
  }

  stdout(chunk: Uint8Array): void {
    const text = this.#partial + this.#decoders.out.decode(chunk, { stream: true });
    const lines = text.split("\n");
    this.#partial = lines.pop() ?? "";
    if (this.#partial.length > MAX_LINE) {
      this.#partial = "";
      this.#dropping = true;
    }
    for (const line of lines) {
      if (this.#dropping) {
        this.#dropping = false;
        continue;
      }
      this.#line(line);
    }
  }

  stderr(chunk: Uint8Array): void {
    this.#stderr = (this.#stderr + this.#decoders.err.decode(chunk, { stream: true })).slice(
      -STDERR_TAIL,
    );
  }

  /** What the output said, once the vendor has ended. */
  report(): VendorReport {
    if (this.#partial && !this.#dropping) this.#line(this.#partial);
    this.#partial = "";
    this.#stderrJson();
    const report = this.#report;
    if (this.#text.trim()) report.finalText = this.#text.trim();
    for (const error of report.errors) {
      report.httpStatus ??= statusIn(error);
      if (AUTH.test(error)) report.auth = true;
    }
    if (report.httpStatus === 401 || report.httpStatus === 403) report.auth = true;
    return report;
  }

  /** Whether stderr talks about credentials (read only when the vendor failed). */
  stderrMentionsAuth(): boolean {
    return AUTH.test(this.#stderr.slice(-2048));
  }

  /** The last few lines of stderr, for a failure the output did not explain. */
  stderrTail(lines = 3): string {
    return this.#stderr.trim().split("\n").filter((l) => l.trim()).slice(-lines).join(" | ");
  }

  #error(message: unknown): void {
    const text = short(message, 400);
    if (text && !this.#report.errors.includes(text) && this.#report.errors.length < MAX_ITEMS) {
      this.#report.errors.push(text);
    }
  }

  #refusal(tool: string, input: string): void {
    if (this.#report.refusals.length < MAX_ITEMS) this.#report.refusals.push(`${tool}: ${input}`);
  }

  #line(raw: string): void {
    const line = raw.trim();
    if (!line.startsWith("{")) return;
    let event: Json;
    try {
      event = JSON.parse(line);
    } catch {
      return;
    }
    if (!event || typeof event !== "object") return;
    switch (this.#vendor) {
      case "claude":
        return this.#claude(event);
      case "codex":
        return this.#codex(event);
      case "gemini":
        return this.#gemini(event);
      case "opencode":
        return this.#opencode(event);
      case "copilot":
        return this.#copilot(event);
    }
  }

  #claude(event: Json): void {
    if (event.type !== "result") return;
    for (const denial of event.permission_denials ?? []) {
      this.#refusal(String(denial?.tool_name ?? "tool"), what(denial?.tool_input));
    }
    if (typeof event.result === "string") this.#report.finalText = event.result;
    if (event.is_error === true || (event.subtype && event.subtype !== "success")) {
      this.#report.failed = true;
      this.#error(event.result ?? event.subtype ?? "is_error");
    }
    if (typeof event.api_error_status === "number") {
      this.#report.httpStatus = event.api_error_status;
    }
    if (event.api_error_type === "authentication_error") this.#report.auth = true;
  }

  #codex(event: Json): void {
    if (event.type === "turn.failed") {
      this.#report.failed = true;
      this.#error(event.error?.message ?? "turn failed");
    } else if (event.type === "error") {
      this.#error(event.message);
    } else if (event.type === "item.completed" && event.item) {
      const item = event.item;
      if (item.type === "agent_message" && typeof item.text === "string") {
        this.#report.finalText = item.text;
      } else if (
        item.type === "command_execution" &&
        // Declined: never run (its approval or sandbox policy said no), so it has no output.
        (item.status === "declined" ||
          (item.status !== "completed" &&
            SANDBOX_DENIAL.test(String(item.aggregated_output ?? ""))))
      ) {
        this.#refusal("exec_command", short(item.command));
      }
    }
  }

  #gemini(event: Json): void {
    if (event.type === "tool_use") {
      this.#calls.set(String(event.tool_id), `${event.tool_name}: ${what(event.parameters)}`);
      this.#text = "";
    } else if (event.type === "tool_result") {
      const call = this.#calls.get(String(event.tool_id)) ?? `tool: ${event.tool_id}`;
      // A posture withholds write and shell tools from the model altogether: calling one is refused too.
      const withheld = event.error?.type === "tool_not_registered" &&
        GEMINI_WITHHELD.has(call.split(": ")[0]);
      const denied = withheld || event.error?.type === "policy_violation" ||
        /denied by policy/i.test(String(event.error?.message ?? ""));
      if (event.status === "error" && denied) {
        const [tool, ...rest] = call.split(": ");
        this.#refusal(tool, rest.join(": "));
      }
      this.#text = "";
    } else if (event.type === "message" && event.role === "assistant") {
      const content = typeof event.content === "string" ? event.content : "";
      this.#text = event.delta ? this.#text + content : content;
    } else if (event.type === "result" && event.status && event.status !== "success") {
      this.#report.failed = true;
      this.#error(event.error?.message ?? `result ${event.status}`);
    } else if (event.type === "error") {
      this.#error(event.message ?? event.error?.message);
    }
  }

  #opencode(event: Json): void {
    const part = event.part ?? {};
    const unavailable = String(part.state?.input?.error ?? "").match(/unavailable tool '([\w-]+)'/);
    if (event.type === "tool_use" && part.tool === "invalid" && unavailable) {
      // Its permission rules withhold denied tools from the model: calling one is refused too.
      this.#refusal(unavailable[1], "not offered under this posture");
    } else if (event.type === "tool_use" && part.state?.status === "error") {
      const message = String(part.state.error ?? "");
      if (/rule which prevents|permission|denied|rejected/i.test(message)) {
        this.#refusal(String(part.tool ?? "tool"), what(part.state.input));
      }
    } else if (event.type === "text" && typeof part.text === "string") {
      this.#report.finalText = part.text;
    } else if (event.type === "error") {
      this.#report.failed = true;
      const data = event.error?.data ?? {};
      if (typeof data.statusCode === "number") this.#report.httpStatus = data.statusCode;
      if (/auth/i.test(String(event.error?.name ?? ""))) this.#report.auth = true;
      this.#error(data.message ?? event.error?.name ?? "error");
    }
  }

  #copilot(event: Json): void {
    const data = event.data ?? {};
    if (event.type === "tool.execution_start") {
      this.#calls.set(String(data.toolCallId), `${data.toolName}: ${what(data.arguments)}`);
    } else if (event.type === "tool.execution_complete" && data.success === false) {
      if (data.error?.code === "denied") {
        const call = this.#calls.get(String(data.toolCallId)) ?? `tool: ${data.toolCallId}`;
        const [tool, ...rest] = call.split(": ");
        this.#refusal(tool, rest.join(": "));
      }
    } else if (event.type === "assistant.message" && typeof data.content === "string") {
      if (data.content.trim()) this.#report.finalText = data.content;
    } else if (/error/i.test(String(event.type))) {
      this.#report.failed = true;
      this.#error(data.message ?? data.error?.message ?? event.type);
    }
  }

  /** A JSON error object printed on stderr (gemini before its stream starts). */
  #stderrJson(): void {
    const text = this.#stderr;
    let at = text.lastIndexOf('"error"');
    for (let tries = 0; at >= 0 && tries < 8; tries++) {
      const open = text.lastIndexOf("\n{", at);
      const start = open >= 0 ? open + 1 : text.startsWith("{") ? 0 : -1;
      if (start >= 0) {
        try {
          const parsed = JSON.parse(text.slice(start).trim());
          const error = parsed?.error;
          if (error) {
            this.#report.failed = true;
            this.#error(error.message ?? error);
            const code = Number(error.code);
            if (code >= 400 && code <= 599) this.#report.httpStatus ??= code;
            return;
          }
        } catch {
          // not a whole JSON document from there
        }
      }
      at = text.lastIndexOf('"error"', at - 1);
    }
  }
}
