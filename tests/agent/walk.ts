/**
 * The walk's bookkeeping: running real peaks processes (the binary's permissions, a temp project,
 * an explicit environment), counting every call and byte per actor and phase, and failing on the
 * first call that fails or changes nothing. The players (orchestrator.ts, sub_agent.ts) decide
 * what to run; this file only runs and records it.
 */
import { join } from "../../lib/infra/std.ts";
import { runPeaks } from "../support/cli.ts";
import { splitCommandLine } from "../../lib/infra/shell.ts";

export type Actor = "orchestrator" | "sub-agent" | "git";

export interface Envelope {
  ok: boolean;
  code?: string;
  message?: string;
  command?: string;
  // deno-lint-ignore no-explicit-any
  data?: any;
  warnings?: Array<{ code: string; message: string }>;
  nextActions?: string[];
}

export interface CallRecord {
  actor: Actor;
  phase: string;
  command: string;
  code: number;
  bytes: number;
}

export class WalkFailure extends Error {
  /** The walk's figures up to the failure (a `WalkReport`), for the report of a failed walk. */
  partial?: unknown;
}

/**
 * A nextAction as a shell would run it. peaks quotes only with '…' and backslashes; a double quote,
 * `$`, a backtick or any other shell syntax would mean something else to the agent's shell than to
 * this walker, so it ends the walk.
 */
export function nextActionWords(line: string): string[] {
  try {
    return splitCommandLine(line);
  } catch (error) {
    throw new WalkFailure(`a nextAction a shell would not run as written: ${line} (${error})`);
  }
}

/** Shell words: plain, '…' (as peaks quotes), "…" (as the skills write), backslash escapes. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let current = "";
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      if (end === -1) throw new WalkFailure(`unbalanced quote in: ${line}`);
      current += line.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === "\\") {
      current += line[++i] ?? "";
      inWord = true;
    } else if (c === " ") {
      if (inWord) words.push(current);
      current = "";
      inWord = false;
    } else {
      current += c;
      inWord = true;
    }
  }
  if (inWord) words.push(current);
  return words;
}

const utf8 = (text: string) => new TextEncoder().encode(text).length;

/** WALK_TRACE=1 prints every call and the start of its output while debugging a walk. */
const TRACE = Deno.env.get("WALK_TRACE") === "1";
const TRACE_BYTES = 1500;
/**
 * WALK_EXPLORE=CODE,CODE lets those warnings pass while looking for what fails after them (a debug
 * aid like WALK_TRACE; the suite and `deno task walk` never set it).
 */
const EXPLORE = (Deno.env.get("WALK_EXPLORE") ?? "").split(",").filter(Boolean);

/**
 * A state-changing call whose envelope says it changed nothing: a literal agent repeating a step
 * or running one the workflow had already passed.
 */
function changedNothing(words: string[], envelope: Envelope | undefined): boolean {
  const data = envelope?.data ?? {};
  const command = words.slice(1, 3).join(" ");
  switch (command) {
    case "request transition":
      return data.changed === false;
    case "request init":
      return words.includes("--apply") && data.status === "already-exists";
    case "sub-agent dispatch":
      return !data.toolCall && !(data.toolCalls?.length) && !data.detached;
    case "sub-agent finalize":
      return (data.finalized ?? []).some((f: { alreadyFinalized?: boolean }) => f.alreadyFinalized);
    case "statusline install":
    case "preferences set":
      return data.changed === false;
    default:
      return false;
  }
}

export class Walk {
  readonly calls: CallRecord[] = [];
  readonly milestones: string[] = [];
  /** Bytes of skill text the orchestrator read (SKILL.md and every reference it opened). */
  readonly skillFiles = new Map<string, number>();
  /** Files the sub-agents read because a brief named them, with their bytes. */
  readonly briefReads: Array<{ path: string; bytes: number }> = [];
  phase = "startup";
  /** Warning codes the scenario expects; any other warning in an envelope ends the walk. */
  allowedWarnings: string[] = [];
  /** How often each role (or `rd slice`) was dispatched per request: the repair loop's round. */
  readonly rounds: Record<string, number> = {};
  /** Slice levels the host isolated in its own worktrees (Claude Code's `isolation: "worktree"`). */
  hostLevels = 0;
  /** Whether the conversation was already lost once and resumed (a scenario's `resumeAfter`). */
  resumed = false;
  private hostAgents = 0;

  constructor(
    readonly root: string,
    readonly home: string,
    readonly expected: string[],
    readonly mutate?: (command: string, envelope: Envelope) => void,
  ) {}

  /** A file a brief names: read from `base` (the project or a slice's worktree); missing fails. */
  async readNamed(base: string, rel: string, who: string): Promise<string> {
    const path = rel.startsWith("/") ? rel : join(base, rel);
    const text = await Deno.readTextFile(path).catch(() => undefined);
    if (text === undefined) {
      throw new WalkFailure(`${who}'s brief names ${rel}, which does not exist from ${base}`);
    }
    this.briefReads.push({ path: rel, bytes: utf8(text) });
    return text;
  }

  /**
   * What Claude Code does for an `Agent` call with `isolation: "worktree"`: a new worktree made
   * from HEAD at `<repository>/.claude/worktrees/agent-<id>` on a branch `worktree-agent-<id>`.
   */
  async hostWorktree(): Promise<string> {
    const id = `walk${++this.hostAgents}`;
    const dir = join(this.root, ".claude", "worktrees", `agent-${id}`);
    await this.git(`git worktree add -q -b worktree-agent-${id} ${dir} HEAD`);
    return dir;
  }

  /** Conversations so far beyond the first (a resume starts a new one that reads the skill again). */
  conversation = 0;

  /** The orchestrator opens a skill file; its bytes count once per conversation. */
  readSkillFile(name: string, text: string): string {
    this.skillFiles.set(
      this.conversation ? `${name} (conversation ${this.conversation + 1})` : name,
      utf8(text),
    );
    return text;
  }

  get skillBytes(): number {
    return [...this.skillFiles.values()].reduce((n, b) => n + b, 0);
  }

  /**
   * Runs one `peaks …` line as written; any failure or no-op ends the walk, except an exit 3 whose
   * code the skill tells the caller to act on (`refusals`).
   */
  async peaks(
    command: string | string[],
    actor: Actor,
    phase = this.phase,
    refusals: string[] = [],
  ): Promise<{ envelope?: Envelope; stdout: string }> {
    const words = typeof command === "string" ? shellWords(command) : command;
    const line = typeof command === "string" ? command : words.join(" ");
    if (words[0] !== "peaks") throw new WalkFailure(`not a peaks command: ${line}`);
    const result = await runPeaks(words.slice(1), {
      cwd: this.root,
      home: this.home,
      env: { CLAUDECODE: "1" },
    });
    this.calls.push({
      actor,
      phase,
      command: line,
      code: result.code,
      bytes: utf8(result.stdout) + utf8(result.stderr),
    });
    const envelope = result.json as Envelope | undefined;
    if (TRACE) {
      console.error(
        `[${actor}/${phase}] ${line} -> ${result.code}\n${result.stdout.slice(0, TRACE_BYTES)}`,
      );
    }
    if (result.code === 3 && envelope?.code && refusals.includes(envelope.code)) {
      return { envelope, stdout: result.stdout };
    }
    if (result.code !== 0) {
      throw new WalkFailure(
        `${actor} call failed (exit ${result.code}): ${line}\n${
          envelope ? `${envelope.code}: ${envelope.message}` : result.stderr.trim()
        }`,
      );
    }
    // A resumed conversation runs the startup list again: what it already did stays done.
    const again = this.conversation > 0 && phase === "startup";
    if (!again && changedNothing(words, envelope)) {
      throw new WalkFailure(`${actor} call changed nothing: ${line}`);
    }
    const unexpected = (envelope?.warnings ?? [])
      .filter((w) => !this.allowedWarnings.includes(w.code) && !EXPLORE.includes(w.code));
    if (unexpected.length) {
      throw new WalkFailure(
        `${actor} call warned what the scenario does not expect: ${line}\n${
          unexpected.map((w) => `${w.code}: ${w.message}`).join("\n")
        }`,
      );
    }
    if (envelope && this.mutate) this.mutate(line, envelope);
    return { envelope, stdout: result.stdout };
  }

  /** Runs git the way the skill's review step does; its output is counted apart from peaks'. */
  async git(line: string): Promise<string> {
    const words = shellWords(line);
    const out = await new Deno.Command("git", {
      args: words.slice(1),
      cwd: this.root,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    this.calls.push({
      actor: "git",
      phase: this.phase,
      command: line,
      code: out.code,
      bytes: utf8(text),
    });
    if (out.code !== 0) throw new WalkFailure(`git failed: ${line}`);
    return text;
  }

  /** Records a milestone; one out of the scenario's order ends the walk. */
  reached(milestone: string): void {
    const index = this.milestones.length;
    this.milestones.push(milestone);
    if (this.expected[index] !== milestone) {
      throw new WalkFailure(
        `out of order: step ${index + 1} was ${milestone}, the workflow expects ${
          this.expected[index] ?? "nothing more"
        } (so far: ${this.milestones.join(", ")})`,
      );
    }
  }

  sessionPath(sid: string, ...parts: string[]): string {
    return join(this.root, ".peaks", "_runtime", sid, ...parts);
  }
}

/** The milestone a command is, when it is one: transitions, inits, plans, dispatches. */
export function milestoneOf(words: string[], envelope: Envelope | undefined): string | undefined {
  const flag = (name: string) => {
    const i = words.indexOf(name);
    return i === -1 ? undefined : words[i + 1];
  };
  const command = words.slice(1, 3).join(" ");
  if (command === "request transition") {
    const verdict = flag("--verdict");
    return `${flag("--role")}:${flag("--state")}${verdict ? `:${verdict}` : ""}`;
  }
  if (command === "request init" && words.includes("--apply")) return `${flag("--role")}:init`;
  if (command === "swarm plan" && !envelope?.data?.needsChoice) return "swarm:plan";
  if (command === "swarm converge") return "swarm:converge";
  if (command === "sub-agent dispatch") {
    if (!words.includes("--from-dag")) return `${words[3]}:dispatch`;
    return flag("--batch-id")?.startsWith("slices-") ? "rd:slices" : "swarm:dispatch";
  }
  return undefined;
}

/** The phase a command belongs to (the walker's report groups calls by it). */
export function phaseOf(words: string[], current: string): string {
  const role = words[words.indexOf("--role") + 1];
  const command = words.slice(1, 3).join(" ");
  if (command.startsWith("request ") && words.includes("--role")) {
    return role === "ui" ? "swarm" : role;
  }
  if (command === "swarm plan" || command === "swarm converge") return "swarm";
  if (command === "sub-agent dispatch") {
    if (!words.includes("--from-dag")) return words[3];
    return words.some((w) => w.startsWith("slices-")) ? "rd" : "swarm";
  }
  if (command === "swarm slices") return "rd";
  return current;
}
