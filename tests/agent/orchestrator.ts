/**
 * The orchestrator played as a literal agent: it runs the peaks-code skill's startup list, starts
 * the PRD as the skill shows, and from then on runs only `nextActions[0]` of the last envelope.
 * It departs from that only at the decision points the skill names (the mode, the user's PRD
 * confirmation, `needsChoice`, the check for slices before RD's dispatch, a dispatch's tool calls
 * with the review and finalize of each return (a slice's in its worktree), QA's verdict) and to
 * produce what `data.needs` names, which it may only do for what the orchestrator owns (its PRD
 * and SC files); anything else means the chain sent it ahead of a role.
 */
import { join } from "../../lib/infra/std.ts";
import type { Scenario } from "./scenarios.ts";
import { fillPlaceholders, playSubAgent } from "./sub_agent.ts";
import type { SkillSteps } from "./skill.ts";
import {
  type Envelope,
  milestoneOf,
  nextActionWords,
  phaseOf,
  shellWords,
  type Walk,
  WalkFailure,
} from "./walk.ts";

/** A skill's command line with its `<name>`s filled, word by word so a value stays one word. */
function filled(template: string, values: Record<string, string>): string[] {
  return shellWords(template).map((word) =>
    word.replace(/<([a-zA-Z][a-zA-Z-]*)>/g, (whole, name) => {
      if (!(name in values)) throw new WalkFailure(`no value for ${whole} in: ${template}`);
      return values[name];
    })
  );
}

/** The files the orchestrator itself may write when a gate names them. */
const OWNED = [/\/prd\/requests\//, /\/sc\//];

export class Orchestrator {
  private values: Record<string, string>;
  private last: Envelope = { ok: true };
  private lastMilestone = "";

  constructor(readonly walk: Walk, readonly skill: SkillSteps, readonly scenario: Scenario) {
    this.values = {
      mode: scenario.mode,
      rid: scenario.rid,
      type: scenario.type,
      title: scenario.title,
    };
  }

  /** Runs one command the orchestrator chose; notes milestones and the phase. */
  async run(command: string | string[], refusals: string[] = []): Promise<Envelope> {
    const words = typeof command === "string" ? shellWords(command) : command;
    this.walk.phase = phaseOf(words, this.walk.phase);
    const { envelope, stdout } = await this.walk.peaks(
      command,
      "orchestrator",
      this.walk.phase,
      refusals,
    );
    const result = envelope ?? { ok: true, data: { text: stdout } };
    const milestone = milestoneOf(words, result);
    if (milestone) {
      this.walk.reached(milestone);
      this.lastMilestone = milestone;
    }
    this.last = result;
    return result;
  }

  async header(): Promise<void> {
    await this.run(this.skill.header);
  }

  async startup(): Promise<void> {
    this.walk.phase = "startup";
    this.walk.readSkillFile("SKILL.md", this.skill.files["SKILL.md"]);
    let info: Envelope = { ok: true };
    let mode: string | undefined;
    for (const template of this.skill.startup) {
      if (template.includes("preferences set --key swarmMode") && mode) continue;
      if (template.includes("session title") && info.data?.hasTitle) continue;
      const envelope = await this.run(filled(template, this.values));
      // The scan's nextAction writes the standards (a preview first in the modes that ask).
      let next = template.includes("scan archetype") ? envelope : undefined;
      while (next && /^peaks standards init /.test(next.nextActions?.[0] ?? "")) {
        const command = next.nextActions![0];
        nextActionWords(command);
        next = await this.run(command);
      }
      if (template.includes("session start")) {
        info = envelope;
        this.listed = envelope;
        this.values.sid = envelope.data.sessionId;
        mode = envelope.data.swarmMode ?? undefined;
        // The user's answer to the mode question (a decision point).
        if (!mode) await this.header();
      }
    }
  }

  /** The session this conversation started (a later request in it runs no startup again). */
  get sessionId(): string | undefined {
    return this.values.sid;
  }

  set sessionId(sid: string | undefined) {
    if (sid) this.values.sid = sid;
  }

  /**
   * The PRD as the skill starts it, then the chain of nextActions to the end. Answers "lost" when
   * the conversation ends at the scenario's `resumeAfter` milestone (its context is gone).
   */
  async workflow(): Promise<"done" | "lost"> {
    this.walk.phase = "prd";
    const init = await this.run(filled(this.skill.start[0], this.values));
    await this.writePrd(join(this.walk.root, init.data.path));
    return await this.follow(await this.run(filled(this.skill.start[1], this.values)));
  }

  /**
   * A new conversation: the startup list, then, from peaks output alone, the request still open
   * (`session start`: the requests not closed yet) and its next step (the skill's "Resuming a session").
   */
  async resume(): Promise<"done" | "lost"> {
    await this.startup();
    // `session start` lists the requests not closed yet, one row each.
    const rows: Array<{ rid: string; role: string; state: string }> = this.listed?.data?.requests ??
      [];
    const open = rows.map((r) => r.rid);
    if (open.length !== 1) {
      throw new WalkFailure(`resume: session start lists ${open.length} open requests, not one`);
    }
    if (open[0] !== this.scenario.rid) {
      throw new WalkFailure(`resume: the open request is ${open[0]}, not ${this.scenario.rid}`);
    }
    this.lastMilestone = this.walk.milestones.at(-1) ?? "";
    return await this.follow(await this.run(filled(this.skill.resume, this.values)));
  }

  private listed?: Envelope;
  /** Slice levels sent so far for this request. */
  private sliceLevel = 0;

  private async follow(start: Envelope): Promise<"done" | "lost"> {
    let envelope = start;
    for (let step = 0; step < 200; step++) {
      if (this.scenario.resumeAfter === this.lastMilestone && !this.walk.resumed) {
        this.walk.resumed = true;
        return "lost";
      }
      if (envelope.data?.toolCall || envelope.data?.toolCalls) {
        envelope = await this.fanOut(envelope);
        continue;
      }
      if (envelope.data?.needsChoice) throw new WalkFailure("the mode needs no choice here");
      const next = envelope.nextActions?.[0];
      if (!next) {
        await this.finish(envelope);
        return "done";
      }
      nextActionWords(next);
      await this.produce(envelope.data?.needs ?? []);
      if (/--role prd --state confirmed-by-user/.test(next)) await this.header();
      envelope = /^peaks sub-agent dispatch rd /.test(next)
        ? await this.slicesOr(next)
        : await this.run(next);
      if (envelope.data?.placeholders?.length && / request init /.test(next)) {
        await this.fillRequest(join(this.walk.root, envelope.data.path));
      }
    }
    throw new WalkFailure("the chain did not end in 200 steps");
  }

  /**
   * The decision point before RD's dispatch: the slices RD planning wrote go out instead, unless
   * there are none or every one is merged already (then RD's dispatch runs).
   */
  private async slicesOr(dispatchRd: string): Promise<Envelope> {
    const check = await this.run(filled(this.skill.slicesCheck, this.values), ["SLICES_NOT_FOUND"]);
    if (!check.ok || check.data?.complete || check.data?.slices === false) {
      return await this.run(dispatchRd);
    }
    const send = check.nextActions?.[0];
    if (!send) throw new WalkFailure("swarm slices named no dispatch for the slices");
    nextActionWords(send);
    return await this.run(send);
  }

  private async finish(envelope: Envelope): Promise<void> {
    if (this.lastMilestone !== "txt:finalized") {
      throw new WalkFailure(
        `stuck after ${this.lastMilestone}: no nextAction (waiting for: ${
          envelope.data?.waitingFor ?? "nothing said"
        })`,
      );
    }
    // The end of the workflow: show the change, propose the commit, ask (the skill's "Closing a
    // request"); the user's answer is played by the scenario: commit it, or leave it uncommitted.
    const options: Array<{ decision: string; command: string }> = envelope.data?.options ?? [];
    const message: string | undefined = envelope.data?.commitMessage;
    if (envelope.command !== "request.close" || options.length !== 2 || !message) {
      throw new WalkFailure("the workflow ended without request close asking for the decision");
    }
    await this.header();
    const decision = this.commitAtClose ? "committed" : "uncommitted";
    if (this.commitAtClose) {
      await this.walk.git("git add -A");
      await this.walk.git(
        `git -c user.name=walker -c user.email=walker@peaks.invalid commit -q -m '${
          message.replaceAll("'", "")
        }'`,
      );
    }
    const command = options.find((o) => o.decision === decision)?.command;
    if (!command) throw new WalkFailure(`request close offers no ${decision} option`);
    nextActionWords(command);
    const closed = await this.run(command);
    if (closed.data?.closed !== true) {
      throw new WalkFailure(`request close did not close: ${closed.message ?? closed.code}`);
    }
  }

  /** The user's answer at the end of each request: commit the change (a session of requests). */
  commitAtClose = false;

  /** What a gate needs before the next command: only the orchestrator's own files. */
  private async produce(needs: Array<{ path: string; lines?: string[]; problem: string }>) {
    for (const need of needs) {
      if (!OWNED.some((re) => re.test(need.path))) {
        throw new WalkFailure(
          `the next step needs ${need.path} (${need.problem}), which a role's sub-agent owns`,
        );
      }
      const path = join(this.walk.root, need.path);
      if (need.problem.includes("placeholder")) {
        await fillPlaceholders(path, (token) => `${token}: ${this.scenario.title}`);
        continue;
      }
      await Deno.mkdir(path.replace(/\/[^/]*$/, ""), { recursive: true });
      const lines = need.lines?.length ? need.lines : ["## Impact"];
      // What the orchestrator knows of the change: the product files the working tree shows.
      const changed = (await this.walk.git("git status --short --untracked-files=all"))
        .split("\n").map((l) => l.slice(3)).filter((f) => f && !/^(\.peaks|\.claude)\//.test(f));
      const facts = changed.length ? changed.map((f) => `- ${f}`).join("\n") : "- no product file";
      await Deno.writeTextFile(
        path,
        `# ${this.scenario.rid}: ${this.scenario.title}\n\n${
          lines.map((l) => `${l}\n\n${facts}\n`).join("\n")
        }`,
      );
    }
  }

  private async writePrd(path: string): Promise<void> {
    const text = await Deno.readTextFile(path);
    const end = text.indexOf("---", 3) + 3;
    const history = text.indexOf("<!-- peaks:history:begin -->");
    await Deno.writeTextFile(
      path,
      `${text.slice(0, end)}\n${this.scenario.prd}\n${text.slice(history)}`,
    );
  }

  private async fillRequest(path: string): Promise<void> {
    await fillPlaceholders(path, () => `from the ${this.scenario.rid} PRD`);
  }

  /** A dispatch envelope: show the hint, make every tool call at once, review and finalize each. */
  private async fanOut(envelope: Envelope): Promise<Envelope> {
    const data = envelope.data;
    const calls: ToolCall[] = data.toolCalls ?? [data.toolCall];
    const records: string[] = data.records ?? [data.record];
    if (typeof data.orchestratorVisibleHint !== "string") throw new WalkFailure("no hint to show");
    if (calls.some((c) => typeof c.name !== "string" || !c.args?.prompt)) {
      throw new WalkFailure("a tool call without a tool name or prompt");
    }
    // Implementation slices: each sub-agent works in its worktree, reviewed and finalized there.
    const slices: Array<{ record: string; worktree?: string }> | undefined = data.slices;
    if (slices) {
      this.walk.readSkillFile("references/slices.md", this.skill.files["references/slices.md"]);
    }
    const hosted = calls.filter((c) => c.args.isolation === "worktree").length;
    if (hosted && (!slices || hosted !== calls.length)) {
      throw new WalkFailure("host isolation on a call that is not one of a level's slices");
    }
    if (hosted) this.walk.hostLevels++;
    const level = slices ? (this.sliceLevel = this.sliceLevel + 1) : 0;
    if (level === 1 && this.scenario.hostLevel1 && !hosted) {
      const dirty = await this.walk.git("git status --short --untracked-files=all");
      throw new WalkFailure(
        `the first slice level should run in Claude Code's own worktrees, but peaks made them (${
          (envelope.warnings ?? []).map((w) => w.code).join(", ") || "no warning"
        }); the main tree: ${dirty.trim().split("\n").join("; ") || "clean"}`,
      );
    }
    const returns = await Promise.all(calls.map((call) => this.play(call, Boolean(slices))));
    let last = envelope;
    for (let i = 0; i < calls.length; i++) {
      const worktree = returns[i].dir ?? slices?.find((s) => s.record === records[i])?.worktree;
      if (slices && !worktree) throw new WalkFailure(`slice ${records[i]} names no worktree`);
      // The role the orchestrator dispatched, as the tool call's description names it.
      const role = /^(\S+) for rid=/.exec(calls[i].args.description ?? "")?.[1] ?? "";
      last = await this.review(records[i], returns[i], role, slices ? worktree : undefined);
    }
    return last;
  }

  /** The host runs one tool call: in a new worktree of its own when the call asks for one. */
  private async play(call: ToolCall, slice: boolean): Promise<Returned> {
    const role = /^([^\s:]+)(?::\S+)? for rid=/.exec(String(call.args.description))?.[1] ?? "";
    const key = `${this.scenario.rid} ${slice ? `${role} slice` : role}`;
    const round = this.walk.rounds[key] ?? 0;
    this.walk.rounds[key] = round + 1;
    const dir = call.args.isolation === "worktree" ? await this.walk.hostWorktree() : undefined;
    const json = await playSubAgent(
      { walk: this.walk, scenario: this.scenario, phase: this.walk.phase, round, hostDir: dir },
      call.args.prompt,
    );
    return { json, dir };
  }

  /**
   * The skill's review and finalize of one return (a slice's in its worktree; a host-isolated one
   * with `--worktree`); a `blocked` return is finalized failed with its reason, as the skill says.
   */
  private async review(
    record: string,
    returned: Returned,
    role: string,
    worktree?: string,
  ): Promise<Envelope> {
    const parsed = JSON.parse(returned.json);
    const values = {
      ...this.values,
      record,
      "return-json": returned.json,
      worktree: worktree ?? "",
    };
    let last = this.last;
    for (const template of worktree ? this.skill.sliceReview : this.skill.review) {
      if (template.startsWith("git ")) {
        await this.walk.git(filled(template, values).join(" "));
        continue;
      }
      const words = filled(template, values);
      if (returned.dir) words.splice(words.indexOf("--json"), 0, "--worktree", returned.dir);
      if (parsed.status === "blocked") {
        const at = words.indexOf("--outcome");
        const end = words.indexOf("--json");
        words.splice(at, end - at, "--outcome", "failed", "--error", parsed.blockedReason);
      }
      last = await this.run(words, worktree ? ["SLICE_CONFLICT"] : []);
      if (!last.ok) last = await this.decideConflict(last);
    }
    if (parsed.status === "blocked") last = await this.decideBlocked(parsed.blockedReason, role);
    return last;
  }

  /** `SLICE_CONFLICT` at a slice's finalize: the scenario's choice among `data.conflicts[].commands`. */
  private async decideConflict(refusal: Envelope): Promise<Envelope> {
    const choose = this.scenario.conflict?.choose;
    const command = choose && refusal.data?.conflicts?.[0]?.commands?.[choose];
    if (!command) throw new WalkFailure(`an unexpected conflict: ${refusal.message}`);
    this.walk.reached("rd:slice-conflict");
    this.lastMilestone = "rd:slice-conflict";
    nextActionWords(command);
    return await this.run(command);
  }

  /**
   * The decision table's row for a blocked return: the user logs in (the walker plays the answer),
   * then that role is dispatched again.
   */
  private async decideBlocked(reason: string, role: string): Promise<Envelope> {
    if (reason !== "login-required" || !this.skill.loginRow) {
      throw new WalkFailure(
        `a blocked return (${reason}) the skill's decision table has no row for`,
      );
    }
    if (!/ask the user to log in/.test(this.skill.loginRow)) {
      throw new WalkFailure(
        `the login-required row does not say to ask the user: ${this.skill.loginRow}`,
      );
    }
    this.walk.reached("user:logged-in");
    this.lastMilestone = "user:logged-in";
    // "dispatch that role again": the row's command, as written, for the role that was blocked.
    const command = /`(peaks sub-agent dispatch [^`]+)`/.exec(this.skill.loginRow)?.[1];
    if (!command) {
      throw new WalkFailure(`the login-required row names no command: ${this.skill.loginRow}`);
    }
    const again = await this.run(filled(command, { ...this.values, role }));
    return await this.fanOut(again);
  }
}

interface ToolCall {
  name: string;
  args: { prompt: string; description?: string; isolation?: string };
}

interface Returned {
  json: string;
  /** The host's worktree the sub-agent worked in, when the host isolated it. */
  dir?: string;
}
