/**
 * The scripted agent: what the orchestrating LLM does at each `# agent:`
 * line of the runbook (fill a request, write a prompt file, make the tool
 * calls, wait for the sub-agents). Sub-agents themselves are the stand-in
 * (demo/stand_in/agent.ts): run directly for in-process tool calls, or as the
 * vendor CLI of a detached run.
 */
import { dirname, join } from "../lib/infra/std.ts";
import { fillPlaceholders } from "./stand_in/work.ts";
import type { RunbookState, Step, SubAgentRun } from "./runbook.ts";
import { RunbookError } from "./runbook.ts";

const PRD_BODY = (rid: string) =>
  `# PRD ${rid}: Member profile page with avatar upload

Type: feature

## Background

Team members can only be seen as cards in the list; people ask for a page per
member where they can also set their own avatar.

## Goals

- A profile page per member, reachable from the list.
- Members can upload an avatar image from the profile page.

## Non-goals

- Editing name or role.
- Storing avatars on a server (the app has no backend yet).

## User stories

- As a team member, I want my own page with my photo, so that colleagues recognise me.

## Acceptance criteria

- A1: /members/:id shows the member's name and role; an unknown id shows "not found" with a link back.
- A2: dropping a PNG or JPEG up to 2 MB on the avatar shows it at once.
- A3: a larger file or another image type is refused with a message under the upload area.

## Open questions

- none
`;

function sessionDir(state: RunbookState): string {
  return join(state.options.root, ".peaks", "_runtime", state.vars.sid);
}

async function fillRequest(state: RunbookState, role: string): Promise<void> {
  const path = join(sessionDir(state), role, "requests", `${state.vars.rid}.md`);
  const text = await Deno.readTextFile(path);
  if (role === "prd") {
    const end = text.indexOf("---", 3) + 3;
    const history = text.indexOf("<!-- peaks:history:begin -->");
    await Deno.writeTextFile(
      path,
      `${text.slice(0, end)}\n${PRD_BODY(state.vars.rid)}\n${
        history === -1 ? "" : text.slice(history)
      }`,
    );
    return;
  }
  await Deno.writeTextFile(
    path,
    fillPlaceholders(
      text,
      (token) => token === "title" ? "Member profile page" : `as planned in the ${role} artefacts`,
    ),
  );
}

async function writePromptFile(state: RunbookState, role: string): Promise<void> {
  const rid = state.vars.rid;
  const path = join(sessionDir(state), "prompts", `${rid}-${role}-task.md`);
  await Deno.mkdir(dirname(path), { recursive: true });
  const task = role === "rd"
    ? "Implement the request with the peaks-rd skill (implementation step). Read rd/tech-doc-<rid>.md, " +
      "ui/design-draft-<rid>.md and qa/test-cases/<rid>.md in the session; write rd/code-review-<rid>.md with ## Findings."
    : "Run the test cases with the peaks-qa skill (execution step) and write qa/test-reports/<rid>.md with " +
      "## Test execution; give the verdict in diffSummary.";
  await Deno.writeTextFile(path, `${task.replaceAll("<rid>", rid)}\n`);
  state.vars["prompt-file"] = path.slice(state.options.root.length + 1);
}

async function runStandIn(state: RunbookState, prompt: string, run: SubAgentRun): Promise<void> {
  const { options } = state;
  const file = await Deno.makeTempFile({ prefix: "peaks-stand-in-", suffix: ".md" });
  try {
    await Deno.writeTextFile(file, prompt);
    const out = await new Deno.Command(options.standIn[0], {
      args: [...options.standIn.slice(1), "--prompt-file", file],
      cwd: options.root,
      env: options.env,
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const lines = new TextDecoder().decode(out.stdout).trim().split("\n");
    run.returnJson = lines[lines.length - 1] || null;
    if (out.code !== 0) {
      run.returnJson = JSON.stringify({
        status: "blocked",
        blockedReason: new TextDecoder().decode(out.stderr).trim(),
      });
    }
  } finally {
    await Deno.remove(file).catch(() => {});
  }
}

/** Tool calls of the last dispatch, in record order. */
function toolCalls(state: RunbookState): Array<{ args: { prompt: string } }> {
  const data = state.last?.data ?? {};
  if (Array.isArray(data.toolCalls)) return data.toolCalls as Array<{ args: { prompt: string } }>;
  return data.toolCall ? [data.toolCall as { args: { prompt: string } }] : [];
}

let running: Promise<void>[] = [];

function makeCalls(state: RunbookState, step: Step): void {
  const hint = state.last?.data?.orchestratorVisibleHint;
  if (typeof hint === "string") state.options.report?.({ type: "status", line: hint });
  if (state.options.mode === "detached") return;
  const calls = toolCalls(state);
  const open = state.pending.slice(-calls.length);
  if (calls.length === 0 || open.length !== calls.length) {
    throw new RunbookError(step, "no tool calls to make");
  }
  running = calls.map(async (call, i) => {
    const started = performance.now();
    await runStandIn(state, call.args.prompt, open[i]);
    open[i].seconds = (performance.now() - started) / 1000;
  });
}

async function recordsOf(
  state: RunbookState,
): Promise<Array<{ recordPath: string; status: string }>> {
  const out = await new Deno.Command(state.options.peaks[0], {
    args: [
      ...state.options.peaks.slice(1),
      "sub-agent",
      "list",
      "--batch",
      state.vars["batch-id"],
      "--json",
    ],
    cwd: state.options.root,
    env: state.options.env,
    clearEnv: true,
    stdout: "piped",
    stderr: "null",
  }).output();
  const envelope = JSON.parse(new TextDecoder().decode(out.stdout));
  return envelope.data?.records ?? envelope.data?.rows ?? [];
}

async function statusLineOf(state: RunbookState): Promise<string> {
  const { options } = state;
  const status = await new Deno.Command(options.peaks[0], {
    args: [...options.peaks.slice(1), "sub-agent", "status", "--batch", state.vars["batch-id"]],
    cwd: options.root,
    env: options.env,
    clearEnv: true,
    stdout: "piped",
    stderr: "null",
  }).output();
  return new TextDecoder().decode(status.stdout).trim();
}

const TERMINAL = new Set(["done", "failed", "cancelled", "timeout"]);

export interface BatchWatch {
  /** The batch's records, as `peaks sub-agent list --batch` returns them. */
  records(): Promise<Array<{ recordPath: string; status: string }>>;
  /** The batch's status line, as `peaks sub-agent status --batch` prints it. */
  statusLine(): Promise<string>;
}

/**
 * Polls a batch until every awaited record is terminal, reporting each new status line. The
 * records are read before the status line, so the line taken in the last round was computed after
 * the last sub-agent had finished: what is shown last is the batch's final state.
 */
export async function watchBatch(
  watch: BatchWatch,
  awaited: string[],
  report: (line: string) => void,
  options: { timeoutMs: number; intervalMs: number; onTimeout: () => Error },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let shown = "";
  while (true) {
    const records = await watch.records();
    const line = await watch.statusLine();
    if (line && line !== shown) report(line);
    shown = line;
    const mine = records.filter((r) => awaited.includes(r.recordPath));
    if (mine.length === awaited.length && mine.every((r) => TERMINAL.has(r.status))) return;
    if (Date.now() > deadline) throw options.onTimeout();
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs));
  }
}

/** Where each awaited sub-agent ended, as the last lines of a wait. */
async function reportMembers(state: RunbookState): Promise<void> {
  const report = state.options.report;
  if (!report) return;
  for (const run of state.pending) {
    if (state.options.mode === "in-process") {
      let status = "returned nothing";
      try {
        status = String(JSON.parse(run.returnJson ?? "").status ?? status);
      } catch {
        // not JSON: reported as is
      }
      const role = /"role"\s*:\s*"([^"]+)"/.exec(run.returnJson ?? "")?.[1] ?? "sub-agent";
      report({ type: "member", role, status, seconds: run.seconds ?? null });
      continue;
    }
    const saved = JSON.parse(await Deno.readTextFile(join(state.options.root, run.record)));
    const started = Date.parse(saved.createdAt);
    const ended = Date.parse(saved.completedAt ?? saved.updatedAt);
    report({
      type: "member",
      role: String(saved.role),
      status: String(saved.status),
      seconds: Number.isFinite(ended - started) ? (ended - started) / 1000 : null,
    });
  }
}

async function waitForSubAgents(state: RunbookState, step: Step): Promise<void> {
  const { options } = state;
  if (options.mode === "in-process") {
    await Promise.all(running);
    running = [];
    await reportMembers(state);
    return;
  }
  await watchBatch(
    { records: () => recordsOf(state), statusLine: () => statusLineOf(state) },
    state.pending.map((p) => p.record),
    (line) => options.report?.({ type: "status", line }),
    {
      timeoutMs: options.waitMs ?? 180_000,
      intervalMs: 1000,
      onTimeout: () => new RunbookError(step, "sub-agents did not finish in time"),
    },
  );
  for (const run of state.pending) run.returnJson = await detachedReturn(state, run.record);
  await reportMembers(state);
}

/** The return JSON a detached vendor printed last, read from its log. */
async function detachedReturn(state: RunbookState, record: string): Promise<string | null> {
  const saved = JSON.parse(await Deno.readTextFile(join(state.options.root, record)));
  if (saved.result) return JSON.stringify(saved.result);
  const log = saved.detached?.logPath ?? saved.logPath;
  if (typeof log !== "string") return null;
  const lines = (await Deno.readTextFile(join(state.options.root, log))).trim().split("\n");
  for (const line of lines.reverse()) {
    try {
      const value = JSON.parse(line);
      if (value && typeof value === "object" && "role" in value) return line;
    } catch {
      // not JSON
    }
  }
  return null;
}

async function writeFile(state: RunbookState, relative: string, text: string): Promise<void> {
  const path = join(sessionDir(state), relative);
  await Deno.mkdir(dirname(path), { recursive: true });
  await Deno.writeTextFile(path, text);
}

/** Does the work one `# agent:` line describes. */
export async function agentStep(step: Step, state: RunbookState): Promise<void> {
  const text = step.text;
  const rid = state.vars.rid;
  const fill = /fill the (\w+) request/.exec(text);
  const prompt = /write the (\w+) task prompt file/.exec(text);
  if (/^write sc\//.test(text)) {
    await writeFile(
      state,
      `sc/${rid}-impact.md`,
      `# Impact: ${rid}\n\n- Adds a /members/:id route, a page and an upload component.\n- Touches the members store (new optional field and action).\n- Left out: server storage of avatars.\n`,
    );
  }
  if (/^write txt\/handoff/.test(text)) {
    await writeFile(
      state,
      `txt/handoff-${rid}.md`,
      `# Handoff: ${rid}\n\n## Summary\n\nMember profile page with avatar upload.\n\n## Verification\n\nQA verdict pass (5 of 5 cases).\n\n## Standards increment\n\nCLAUDE.md and AGENTS.md gained the peaks block naming React, Vite, Tailwind CSS, zustand and Vitest.\n`,
    );
  }
  if (fill) await fillRequest(state, fill[1]);
  if (prompt) await writePromptFile(state, prompt[1]);
  if (/make (the|every) call/.test(text)) makeCalls(state, step);
  if (/returns? its JSON/.test(text)) await waitForSubAgents(state, step);
}
