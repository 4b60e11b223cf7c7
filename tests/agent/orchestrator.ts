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
import { REPO } from "../support/cli.ts";
import type { Scenario } from "./scenarios.ts";
import { fillPlaceholders, playSubAgent } from "./sub_agent.ts";
import {
  type Envelope,
  milestoneOf,
  nextActionWords,
  phaseOf,
  shellWords,
  type Walk,
  WalkFailure,
} from "./walk.ts";

/** The `sh` lines of a skill section (from its heading to the next heading of the same level). */
export function sectionCommands(markdown: string, heading: string): string[] {
  const lines = markdown.split("\n");
  const start = lines.findIndex((l) => l.trim() === heading);
  if (start === -1) throw new WalkFailure(`the skill has no section "${heading}"`);
  const level = heading.split(" ")[0];
  const out: string[] = [];
  let fenced = false;
  for (const raw of lines.slice(start + 1)) {
    if (!fenced && new RegExp(`^${level} `).test(raw)) break;
    if (/^\s*```/.test(raw)) {
      fenced = !fenced;
      continue;
    }
    if (fenced && raw.trim()) out.push(raw.trim());
  }
  return out;
}

export interface SkillSteps {
  startup: string[];
  /** The two commands that start the workflow: create the PRD, lint it. */
  start: string[];
  /** The review and finalize of a returned sub-agent. */
  review: string[];
  header: string;
  /** The decision point before RD's dispatch: the check for implementation slices. */
  slicesCheck: string;
  /** The review and finalize of a returned slice, in its worktree (references/slices.md). */
  sliceReview: string[];
}

/** The command in backticks of the decision-point row that starts with `moment`. */
function decisionCommand(markdown: string, moment: string): string {
  const row = markdown.split("\n").find((l) => l.startsWith(`| ${moment}`));
  const command = row && /`(peaks [^`]+)`/.exec(row.slice(row.indexOf("|", 2)))?.[1];
  if (!command) throw new WalkFailure(`the skill's decision points have no row "${moment}"`);
  return command;
}

export async function readSkill(): Promise<SkillSteps> {
  const skill = join(REPO, "skills", "peaks-code");
  const text = await Deno.readTextFile(join(skill, "SKILL.md"));
  const slices = await Deno.readTextFile(join(skill, "references", "slices.md"));
  return {
    startup: sectionCommands(text, "## Startup (in order, one command each)"),
    start: sectionCommands(text, "## The workflow").slice(0, 2),
    review: sectionCommands(text, "### After each sub-agent returns"),
    header: sectionCommands(text, "## Rules that hold at every step")[0],
    slicesCheck: decisionCommand(text, "the nextAction is `swarm slices --rid <rid>`"),
    sliceReview: sectionCommands(slices, "## 2. Finalize every slice"),
  };
}

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
  private dispatched: Record<string, number> = {};
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
    let info: Envelope = { ok: true };
    let mode: string | undefined;
    for (const template of this.skill.startup) {
      if (template.includes("preferences set --key swarmMode") && mode) continue;
      if (template.includes("session title") && info.data?.hasTitle) continue;
      const envelope = await this.run(filled(template, this.values));
      if (template.includes("session info")) {
        info = envelope;
        this.values.sid = envelope.data.sessionId;
      }
      if (template.includes("preferences get --key swarmMode")) {
        mode = envelope.data.value ?? undefined;
        // The user's answer to the mode question (a decision point).
        if (!mode) await this.header();
      }
    }
  }

  /** The PRD as the skill starts it, then the chain of nextActions to the end. */
  async workflow(): Promise<void> {
    this.walk.phase = "prd";
    const init = await this.run(filled(this.skill.start[0], this.values));
    await this.writePrd(join(this.walk.root, init.data.path));
    let envelope = await this.run(filled(this.skill.start[1], this.values));
    for (let step = 0; step < 200; step++) {
      if (envelope.data?.toolCall || envelope.data?.toolCalls) {
        envelope = await this.fanOut(envelope);
        continue;
      }
      if (envelope.data?.needsChoice) throw new WalkFailure("the mode needs no choice here");
      const next = envelope.nextActions?.[0];
      if (!next) return this.finish(envelope);
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
    await this.header();
  }

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
        await fillPlaceholders(path, () => "as agreed with the user");
        continue;
      }
      await Deno.mkdir(path.replace(/\/[^/]*$/, ""), { recursive: true });
      const lines = need.lines?.length ? need.lines : ["## Impact"];
      await Deno.writeTextFile(
        path,
        `# ${this.scenario.rid}\n\n${
          lines.map((l) => `${l}\n\n- recorded by the orchestrator\n`).join("\n")
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
    const calls: Array<{ name: string; args: { prompt: string } }> = data.toolCalls ??
      [data.toolCall];
    const records: string[] = data.records ?? [data.record];
    if (typeof data.orchestratorVisibleHint !== "string") throw new WalkFailure("no hint to show");
    if (calls.some((c) => typeof c.name !== "string" || !c.args?.prompt)) {
      throw new WalkFailure("a tool call without a tool name or prompt");
    }
    const phase = this.walk.phase;
    // Implementation slices: each sub-agent works in its worktree, reviewed and finalized there.
    const slices: Array<{ record: string; worktree?: string }> | undefined = data.slices;
    const returns = await Promise.all(calls.map((call) => {
      if ((call.args as { isolation?: string }).isolation) {
        throw new WalkFailure("a host-isolated tool call: the walker plays no host worktrees");
      }
      const role = /^([^\s:]+)(?::\S+)? for rid=/.exec(
        String((call.args as { description?: string }).description),
      )?.[1] ??
        "";
      const key = slices ? `${role} slice` : role;
      const round = this.dispatched[key] ?? 0;
      this.dispatched[key] = round + 1;
      return playSubAgent(
        { walk: this.walk, scenario: this.scenario, phase, round },
        call.args.prompt,
      );
    }));
    let last = envelope;
    for (let i = 0; i < calls.length; i++) {
      const worktree = slices?.find((s) => s.record === records[i])?.worktree;
      if (slices && !worktree) throw new WalkFailure(`slice ${records[i]} names no worktree`);
      const values = {
        ...this.values,
        record: records[i],
        "return-json": returns[i],
        ...(worktree ? { worktree } : {}),
      };
      for (const template of slices ? this.skill.sliceReview : this.skill.review) {
        if (template.startsWith("git ")) {
          await this.walk.git(filled(template, values).join(" "));
          continue;
        }
        last = await this.run(filled(template, values));
      }
    }
    return last;
  }
}
