/**
 * A dispatched sub-agent played from its brief alone: it runs the brief command its tool call
 * names, then does what the brief says in order: heartbeat, read the channel, create and fill the
 * requests it names, write every deliverable with the exact lines listed, make the product change
 * (RD), register its artefacts, post `<role>.completed`, send the final heartbeat and return the
 * JSON the brief shows, filled in. It knows nothing of the workflow beyond what the brief says.
 */
import { join } from "../../lib/infra/std.ts";
import type { Scenario } from "./scenarios.ts";
import { type Walk, WalkFailure } from "./walk.ts";

export interface Brief {
  text: string;
  record: string;
  role: string;
  rid: string;
  sessionId: string;
}

function runtimeField(text: string, label: string): string {
  const match = new RegExp(`^- ${label}: (\\S+)`, "m").exec(text);
  if (!match) throw new WalkFailure(`the brief has no "${label}" runtime argument`);
  return match[1];
}

/** The brief the tool call's prompt leads to: fetched with the command it names, or the prompt. */
export async function readBrief(walk: Walk, prompt: string, phase: string): Promise<Brief> {
  let text = prompt;
  if (!prompt.includes("## Runtime arguments")) {
    const command = /`(peaks sub-agent brief [^`]+)`/.exec(prompt)?.[1];
    if (!command) throw new WalkFailure(`the tool call's prompt names no brief: ${prompt}`);
    text = (await walk.peaks(command, "sub-agent", phase)).stdout;
  }
  return {
    text,
    record: runtimeField(text, "Dispatch record"),
    role: runtimeField(text, "Role"),
    rid: runtimeField(text, "Request id"),
    sessionId: runtimeField(text, "Session id"),
  };
}

/** The first command line of the brief that starts with `prefix` (inside backticks or on its own). */
function commandIn(text: string, prefix: string, must: string[] = []): string {
  for (const raw of text.split("\n")) {
    const spans = [...raw.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    const candidates = [...spans, raw.replace(/^.*?(?=peaks )/, "").trim()];
    const found = candidates.find((c) => c.startsWith(prefix) && must.every((m) => c.includes(m)));
    if (found) return found;
  }
  throw new WalkFailure(`the brief has no "${prefix}" command`);
}

/** Runnable commands in backticks (a template with `<placeholders>` is not one). */
function allCommands(text: string, prefix: string): string[] {
  return [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1])
    .filter((c) => c.startsWith(prefix) && !c.includes("<"));
}

/** `- <path> (with the lines "## A" and "## B"; no <placeholder> left)` under "Deliver (…):". */
export function deliverables(text: string): Array<{ path: string; lines: string[] }> {
  const out: Array<{ path: string; lines: string[] }> = [];
  let inList = false;
  for (const line of text.split("\n")) {
    if (/^Deliver \(/.test(line)) {
      inList = true;
      continue;
    }
    if (!inList) continue;
    const match = /^- (\.peaks\/\S+)(?: \((.*)\))?$/.exec(line);
    if (match) {
      out.push({
        path: match[1],
        lines: [...(match[2] ?? "").matchAll(/"(#[^"]*)"/g)].map((m) => m[1]),
      });
    } else if (!line.startsWith("- ")) inList = false;
  }
  return out;
}

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/<([^<>]+)>/g, (whole, name) => values[name] ?? whole);
}

/** Replaces every `<placeholder>` above peaks' history block. */
export async function fillPlaceholders(path: string, text: (token: string) => string) {
  const body = await Deno.readTextFile(path);
  const cut = body.indexOf("<!-- peaks:history:begin -->");
  const head = cut === -1 ? body : body.slice(0, cut);
  const rest = cut === -1 ? "" : body.slice(cut);
  await Deno.writeTextFile(
    path,
    head.replace(/<[A-Za-z][^<>\n]*>/g, (token) => text(token.slice(1, -1))) + rest,
  );
}

interface Context {
  walk: Walk;
  scenario: Scenario;
  phase: string;
  /** How many times this role was dispatched before (the repair loop's round). */
  round: number;
}

/** Plays one sub-agent; returns its final message, the return JSON. */
export async function playSubAgent(ctx: Context, prompt: string): Promise<string> {
  const { walk, phase } = ctx;
  const brief = await readBrief(walk, prompt, phase);
  const text = brief.text;
  const run = (line: string) => walk.peaks(line, "sub-agent", phase);
  const beat = commandIn(text, "peaks sub-agent heartbeat", ["--status running"]);
  await run(
    fill(beat, { "0-100": "10", stage: "intake", "what you are doing": "reading the brief" }),
  );
  await run(commandIn(text, "peaks sub-agent shared-read"));
  for (const init of allCommands(text, "peaks request init")) {
    const { envelope, stdout } = await run(init);
    // As written (no --json) the answer is a line of text naming the file.
    const path = envelope?.data.path ?? /(\.peaks\/\S+\.md)/.exec(stdout)?.[1];
    if (!path) throw new WalkFailure(`request init named no file: ${stdout}`);
    await fillPlaceholders(join(walk.root, path), () => `as the ${brief.role} found`);
  }
  await run(fill(beat, { "0-100": "50", stage: "writing", "what you are doing": "writing" }));
  const written = await deliver(ctx, brief);
  if (brief.role === "rd-planning" && ctx.scenario.slices) await planSlices(ctx, brief);
  const slice = isolatedSlice(ctx, brief);
  const product = slice
    ? await slice.spec.change(slice.dir)
    : brief.role === "rd"
    ? await ctx.scenario.change(walk.root, ctx.round)
    : [];
  const register = commandIn(text, "peaks sub-agent artifact");
  for (const path of written) {
    await run(
      fill(register, { file: path, "one line, at most 200 characters": `${brief.role} artefact` }),
    );
  }
  const share = commandIn(text, "peaks sub-agent share", [".completed"]);
  await run(fill(share, {
    "JSON array of the artefact paths you registered": JSON.stringify(written),
  }));
  await run(commandIn(text, "peaks sub-agent heartbeat", ["--status done"]));
  return returnJson(ctx, brief, [...written, ...product]);
}

/**
 * RD planning found the change splits: the slice DAG where the brief says to write it, in the
 * format it shows, then the check it names.
 */
async function planSlices(ctx: Context, brief: Brief): Promise<void> {
  const values = { sid: brief.sessionId, rid: brief.rid };
  const path = /`(\.peaks\/_runtime\/<sid>\/rd\/slices-<rid>\.json)`/.exec(brief.text)?.[1];
  if (!path) throw new WalkFailure("the rd-planning brief does not say where a slice DAG goes");
  const { nodes, edges } = ctx.scenario.slices!;
  const dag = {
    nodes: nodes.map((n) => ({
      id: n.id,
      role: "rd",
      prompt: n.task,
      owns: n.owns,
      isolation: "worktree",
    })),
    edges,
  };
  const absolute = join(ctx.walk.root, fill(path, values));
  await Deno.mkdir(absolute.replace(/\/[^/]*$/, ""), { recursive: true });
  await Deno.writeTextFile(absolute, `${JSON.stringify(dag, null, 2)}\n`);
  await ctx.walk.peaks(
    fill(commandIn(brief.text, "peaks swarm slices"), values),
    "sub-agent",
    ctx.phase,
  );
}

/** An isolated slice's brief: which slice of the scenario it is and the worktree it works in. */
function isolatedSlice(ctx: Context, brief: Brief) {
  if (!/^## Your worktree \(isolated slice\)$/m.test(brief.text)) return undefined;
  const id = /^- Slice: ([^;\s]+);/m.exec(brief.text)?.[1];
  const spec = ctx.scenario.slices?.nodes.find((n) => n.id === id);
  if (!spec) throw new WalkFailure(`the brief names slice ${id}, which the scenario does not plan`);
  const dir = /not in the project root: (\S+)/.exec(brief.text)?.[1];
  if (!dir) throw new WalkFailure(`the brief of slice ${id} names no worktree to work in`);
  return { spec, dir };
}

/** Writes each deliverable the brief lists, with the lines it names. */
async function deliver(ctx: Context, brief: Brief): Promise<string[]> {
  const written: string[] = [];
  const verdict = ctx.scenario.verdicts[ctx.round] ?? "pass";
  for (const { path, lines } of deliverables(brief.text)) {
    const absolute = join(ctx.walk.root, path);
    const exists = await Deno.stat(absolute).then(() => true, () => false);
    if (exists && path.includes("/requests/")) {
      await fillPlaceholders(absolute, () => `as the ${brief.role} found`);
    } else {
      const body = lines.length
        ? lines.map((line) => `${line}\n\n${sectionText(brief.role, line, verdict)}\n`).join("\n")
        : `${brief.role} notes for ${brief.rid}.\n`;
      await Deno.mkdir(absolute.replace(/\/[^/]*$/, ""), { recursive: true });
      await Deno.writeTextFile(absolute, `# ${brief.role}: ${brief.rid}\n\n${body}`);
    }
    written.push(path);
  }
  return written;
}

function sectionText(role: string, line: string, verdict: string): string {
  if (role === "qa" && line === "## Test execution") {
    return verdict === "pass"
      ? "- TC1 passed\n- TC2 passed"
      : "- TC1 passed\n- TC2 failed: offset 2 is off by one";
  }
  return `- what ${role} wrote under ${line.slice(3)}`;
}

/** The brief's return JSON, filled in. */
function returnJson(ctx: Context, brief: Brief, artefacts: string[]): string {
  const line = brief.text.split("\n").find((l) => l.trim().startsWith(`{"role":`));
  if (!line) throw new WalkFailure("the brief shows no return JSON");
  const template = JSON.parse(line.trim());
  const result = { ...template, artefacts, diffSummary: `${brief.role}: ${artefacts.join(", ")}` };
  if ("verdict" in template) result.verdict = ctx.scenario.verdicts[ctx.round] ?? "pass";
  return JSON.stringify(result);
}
