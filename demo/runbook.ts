/**
 * Runs skills/peaks-code/references/runbook.md top to bottom on a project,
 * as an agent following the skill would: every `peaks` and `git` line is
 * executed with its placeholders filled, every `# agent:` line is done by a
 * scripted stand-in (demo/stand_in). The demo and the runbook test share it.
 */
import { join } from "../lib/infra/std.ts";
import { splitCommandLine as shellWords } from "../lib/infra/shell.ts";

export interface Step {
  section: string;
  kind: "command" | "agent";
  text: string;
  line: number;
}

/** The runbook's fenced sh blocks, in order: commands and `# agent:` lines. */
export function parseRunbook(markdown: string): Step[] {
  const steps: Step[] = [];
  let section = "";
  let fenced = false;
  markdown.split("\n").forEach((raw, index) => {
    const line = index + 1;
    if (!fenced && raw.startsWith("## ")) section = raw.slice(3).trim();
    if (/^```/.test(raw.trim())) {
      fenced = !fenced;
      return;
    }
    if (!fenced) return;
    const text = raw.trim();
    if (text.startsWith("# agent:")) {
      steps.push({ section, kind: "agent", text: text.slice(8).trim(), line });
    } else if (text && !text.startsWith("#")) steps.push({ section, kind: "command", text, line });
  });
  return steps;
}

export interface SubAgentRun {
  record: string;
  role: string;
  returnJson: string | null;
  /** How long the sub-agent took, measured by the demo (in-process runs). */
  seconds?: number;
}

export interface RunbookOptions {
  root: string;
  /** argv prefix that runs peaks (the binary, or deno run … peaks.ts). */
  peaks: string[];
  /** argv prefix that runs the stand-in agent with a prompt file. */
  standIn: string[];
  env: Record<string, string>;
  vars: Record<string, string>;
  /** "detached": sub-agents run as vendor processes (the stand-in is on PATH as the vendor). */
  mode: "in-process" | "detached";
  vendor?: string;
  /** Reports progress: each step as it starts, each status line while sub-agents run. */
  report?: (event: RunbookEvent) => void;
  /** Scripted agent work for `# agent:` lines. */
  agent: (step: Step, state: RunbookState) => Promise<void>;
  /** How long to wait for detached sub-agents before giving up. */
  waitMs?: number;
}

export type RunbookEvent =
  | { type: "section"; section: string }
  | { type: "command"; text: string; code: number; ms: number; envelope: Envelope | null }
  | { type: "agent"; text: string }
  | { type: "status"; line: string }
  | { type: "member"; role: string; status: string; seconds: number | null };

export interface Envelope {
  ok: boolean;
  code?: string;
  message?: string;
  data?: Record<string, unknown>;
  warnings?: Array<{ code: string; message: string }>;
  nextActions?: string[];
}

export interface RunbookState {
  vars: Record<string, string>;
  last: Envelope | null;
  /** Sub-agents dispatched and not yet finalized by a runbook line. */
  pending: SubAgentRun[];
  /** Every envelope, by the command text that produced it. */
  history: Array<{ text: string; code: number; envelope: Envelope | null }>;
  options: RunbookOptions;
}

export class RunbookError extends Error {
  constructor(readonly step: Step, readonly detail: string) {
    super(`runbook line ${step.line} (${step.text}): ${detail}`);
  }
}

/** Words of a runbook line: plain, '…' or "…" quoted (the runbook uses no other shell syntax). */
export function templateWords(text: string): string[] {
  return [...text.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
}

function fill(text: string, vars: Record<string, string>, step: Step): string {
  return text.replace(/<([a-z][a-z-]*)>/g, (whole, name) => {
    if (name in vars) return vars[name];
    throw new RunbookError(step, `no value for ${whole}`);
  });
}

async function run(
  argv: string[],
  options: RunbookOptions,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(argv[0], {
    args: argv.slice(1),
    cwd: options.root,
    env: options.env,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

/** Remembers what later placeholders need from an envelope. */
function learn(words: string[], envelope: Envelope | null, state: RunbookState): void {
  const data = envelope?.data ?? {};
  if (typeof data.sessionId === "string") state.vars.sid = data.sessionId;
  const command = words.slice(1, 3).join(" ");
  if (command === "swarm plan" && envelope?.nextActions?.length) {
    const next = shellWords(envelope.nextActions[0]);
    const flag = (name: string) => next[next.indexOf(name) + 1];
    if (next.includes("--from-dag")) state.vars["dag-file"] = flag("--from-dag");
    if (next.includes("--batch-id")) state.vars["batch-id"] = flag("--batch-id");
  }
  if (command === "sub-agent dispatch" && envelope?.ok) {
    // Envelopes name records by short id (data.records, data.record); detached ones by path.
    const ids = Array.isArray(data.records) ? data.records as string[] : [data.record];
    const paths = typeof data.dispatchRecordPath === "string"
      ? [data.dispatchRecordPath]
      : ids.map((id) => recordPathOf(state.options.root, String(id)));
    if (typeof data.batchId === "string") state.vars["batch-id"] = data.batchId;
    for (const record of paths) state.pending.push({ record, role: "", returnJson: null });
  }
}

async function command(step: Step, state: RunbookState): Promise<void> {
  const { options } = state;
  const perRecord = step.text.includes("<record>");
  const targets = perRecord ? [...state.pending] : [null];
  if (perRecord && targets.length === 0) throw new RunbookError(step, "no sub-agent to finalize");
  for (const target of targets) {
    const vars = { ...state.vars };
    if (target) {
      vars.record = target.record;
      vars["return-json"] = target.returnJson ?? "{}";
    }
    // Split first, fill after: a filled value (a return JSON, a title) stays one word.
    let words = templateWords(step.text).map((word) => fill(word, vars, step));
    if (
      words[0] === "peaks" && words[1] === "sub-agent" && words[2] === "dispatch" &&
      options.mode === "detached"
    ) {
      words = [...words, "--mode", "detached", "--vendor", options.vendor ?? "claude"];
    }
    const argv = words[0] === "peaks" ? [...options.peaks, ...words.slice(1)] : words;
    const started = performance.now();
    const result = await run(argv, options);
    let envelope: Envelope | null = null;
    try {
      envelope = JSON.parse(result.stdout);
    } catch {
      envelope = null;
    }
    const ms = performance.now() - started;
    options.report?.({ type: "command", text: words.join(" "), code: result.code, ms, envelope });
    state.history.push({ text: words.join(" "), code: result.code, envelope });
    if (result.code !== 0) {
      throw new RunbookError(
        step,
        `exit ${result.code}: ${envelope?.code ?? ""} ${envelope?.message ?? result.stderr.trim()}`,
      );
    }
    state.last = envelope;
    learn(words, envelope, state);
  }
  if (perRecord && step.text.includes("finalize")) state.pending = [];
}

export async function runRunbook(markdown: string, options: RunbookOptions): Promise<RunbookState> {
  const state: RunbookState = {
    vars: { ...options.vars },
    last: null,
    pending: [],
    history: [],
    options,
  };
  let section = "";
  for (const step of parseRunbook(markdown)) {
    if (step.section !== section) {
      section = step.section;
      options.report?.({ type: "section", section });
    }
    if (step.kind === "agent") {
      options.report?.({ type: "agent", text: step.text });
      await options.agent(step, state);
    } else {
      await command(step, state);
    }
  }
  return state;
}

/** The project-relative path of the record whose file name ends in `-<id>.json`. */
function recordPathOf(root: string, id: string): string {
  const base = join(root, ".peaks", "_sub_agents");
  for (const session of Deno.readDirSync(base)) {
    if (!session.isDirectory) continue;
    for (const entry of Deno.readDirSync(join(base, session.name))) {
      if (entry.name.endsWith(`-${id}.json`)) {
        return `.peaks/_sub_agents/${session.name}/${entry.name}`;
      }
    }
  }
  throw new Error(`no dispatch record ${id}`);
}

export function runbookPath(repo: string): string {
  return join(repo, "skills", "peaks-code", "references", "runbook.md");
}
