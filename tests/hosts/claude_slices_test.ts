/**
 * Implementation slices through the real Claude Code, in -p mode. A
 * repository with one commit and nothing uncommitted but what peaks' setup
 * wrote (`.peaks/`, the local settings of `peaks permissions install`) holds
 * a slice DAG of two disjoint slices at one level, both
 * `"isolation": "worktree"`. The scripted orchestrator checks it
 * with `peaks swarm slices`, runs its nextAction (`dispatch --from-dag`),
 * and issues the envelope's Agent calls unchanged, `isolation: "worktree"`
 * included. The real host makes a git worktree per sub-agent and starts each
 * sub-agent in it; the scripted sub-agent reads its pointer brief, asks git
 * where it is, writes the file it owns there, heartbeats and returns its
 * JSON with that worktree. The orchestrator finalizes each slice with
 * `--worktree <worktreePath>` from the host's completion notification, and
 * peaks merges both changes into the main tree and removes the worktrees.
 *
 * With an uncommitted change in the main tree the host's worktrees (made from
 * HEAD) would miss it, so peaks makes the worktrees itself, under
 * `.claude/worktrees/peaks-<key>/` where the host lets its sub-agents write,
 * and the Agent calls carry no `isolation`. Each scripted sub-agent writes
 * its file into the worktree its brief names, one with the Write tool, the
 * other with a shell redirect; finalize merges both.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "@std/assert";
import { join, resolve } from "../../lib/infra/std.ts";
import { briefFacts, envelopeIn } from "./support/claude_flow.ts";
import { CLAUDE } from "./support/hosts.ts";
import { HOST_TIMEOUT_MS, readJson, type World, world } from "./support/scenario.ts";
import {
  type Call,
  type Exchange,
  sideAnswer,
  text,
  tools,
  type Turn,
  type View,
} from "./support/standin.ts";
import { recordPathOf } from "../support/subagent.ts";

const ASK = "Build the slices of r1 with peaks. [slices]";
const RID = "r1";
const SLICES = [
  { id: "api", file: "src/api.txt" },
  { id: "page", file: "src/page.txt" },
];

/** The slice DAG RD planning writes: two disjoint slices at one level, each in its own worktree. */
function sliceDag(): string {
  return JSON.stringify({
    nodes: SLICES.map((s) => ({
      id: s.id,
      role: "rd",
      prompt: `Write ${s.file}.`,
      owns: [s.file],
      isolation: "worktree",
    })),
    edges: [],
  });
}

/** What the host's completion notification of one background agent says. */
interface Notification {
  toolUseId: string;
  result: string;
  worktreePath: string | null;
}

function notifications(view: View): Notification[] {
  const all = `${view.userText}\n${view.system}`;
  return [...all.matchAll(/<task-notification>([\s\S]*?)<\/task-notification>/g)].map((m) => ({
    toolUseId: m[1].match(/<tool-use-id>(\S+)<\/tool-use-id>/)?.[1] ?? "",
    result: m[1].match(/<result>([\s\S]*?)<\/result>/)?.[1] ?? "",
    worktreePath: m[1].match(/<worktreePath>(\S+)<\/worktreePath>/)?.[1] ?? null,
  }));
}

interface Block {
  type: string;
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** The tool_use blocks of the orchestrator's n-th answer, as the host sent them back. */
function toolUses(exchange: Exchange, answer: number): Block[] {
  const answers = exchange.body.messages.filter((m: { role: string }) => m.role === "assistant");
  return answers[answer].content.filter((b: Block) => b.type === "tool_use");
}

/**
 * The scripted orchestrator: `swarm slices`, its nextAction, the envelope's
 * Agent calls unchanged in one message, then one finalize per completion
 * notification (with `--worktree` when the host named one).
 */
function orchestration() {
  const state = {
    // deno-lint-ignore no-explicit-any
    checked: undefined as any,
    // deno-lint-ignore no-explicit-any
    envelope: undefined as any,
    /** Tool-use id of each finalized agent -> the finalize command run for it. */
    finalized: new Map<string, string>(),
    seen: [] as Notification[],
  };
  const turn = (view: View, exchange: Exchange): Turn => {
    const last = view.toolResults.at(-1) ?? "";
    if (view.turn === 0) return tools(CLAUDE.shell(`peaks swarm slices --rid ${RID} --json`));
    if (view.turn === 1) {
      state.checked = envelopeIn(last);
      return tools(CLAUDE.shell(state.checked.nextActions[0]));
    }
    if (view.turn === 2) {
      state.envelope = envelopeIn(last);
      // Every call of the level exactly as the envelope carries it, in one message.
      return tools(
        ...state.envelope.data.toolCalls.map((
          c: { name: string; args: Record<string, unknown> },
        ) => ({ name: c.name, input: c.args })),
      );
    }
    // The Agent calls were the third answer: their tool-use ids map notifications to records.
    const ids = toolUses(exchange, 2).map((b) => b.id);
    const pending = notifications(view).filter((n) => !state.finalized.has(n.toolUseId));
    if (pending.length) {
      state.seen.push(...pending);
      return tools(...pending.map((n): Call => {
        const record = state.envelope.data.records[ids.indexOf(n.toolUseId)];
        const json = n.result.match(/\{"role"[^\n]*\}/)?.[0] ?? "";
        const worktree = n.worktreePath ? ` --worktree ${n.worktreePath}` : "";
        const command =
          `peaks sub-agent finalize --record ${record} --outcome done --result-json '${json}'${worktree} --json`;
        state.finalized.set(n.toolUseId, command);
        return CLAUDE.shell(command);
      }));
    }
    return text(state.finalized.size === SLICES.length ? "Both slices are merged." : "Waiting.");
  };
  return { state, turn };
}

/**
 * A workspace with peaks allowed and the slice DAG written, in `project` (the repository's top
 * level, or a folder inside it); git runs in the project.
 */
async function prepare(w: World, project = w.sandbox.project) {
  const git = async (...args: string[]) => {
    const out = await w.sandbox.run("git", { args, cwd: project, timeoutMs: 30_000 });
    assertEquals(out.code, 0, out.stderr);
    return out.stdout;
  };
  const peaks = async (...args: string[]) => {
    const out = await w.sandbox.run("peaks", { args, cwd: project, timeoutMs: 120_000 });
    assertEquals(out.code, 0, out.stdout + out.stderr);
    return JSON.parse(out.stdout);
  };
  // A folder inside the repository is a project of its own once initialized there by name.
  const init = await peaks("workspace", "init", "--project", project, "--json");
  await peaks("permissions", "install", "--json");
  const sid = init.data.sessionId;
  const dagPath = join(project, ".peaks", "_runtime", sid, "rd", `slices-${RID}.json`);
  await Deno.mkdir(join(dagPath, ".."), { recursive: true });
  await Deno.writeTextFile(dagPath, sliceDag());
  const status = () => git("status", "--porcelain", "--untracked-files=all", "--", ".", ":!.peaks");
  return { git, status };
}

/** Runs the orchestration through the real host, started in `cwd`; no refused call in the run. */
async function runHost(w: World, cwd = w.sandbox.project) {
  const run = await w.sandbox.run("claude", {
    args: ["-p", "--output-format", "json", "--permission-mode", "acceptEdits"],
    stdin: ASK,
    cwd,
    env: w.hostEnv,
    timeoutMs: HOST_TIMEOUT_MS,
  });
  assertEquals(run.code, 0, run.stdout + run.stderr);
  assertEquals(JSON.parse(run.stdout).permission_denials, []);
}

/** The finalize envelopes the orchestrator saw, each one ok. */
function finalizesOf(w: World) {
  const orchestration = w.standIn.calls().filter((c) => c.view!.userText.includes(ASK));
  const finalizes = orchestration.at(-1)!.view!.toolResults
    .filter((r) => r.includes('"sub-agent.finalize"'))
    .map(envelopeIn);
  assertEquals(finalizes.length, SLICES.length);
  for (const f of finalizes) assertEquals(f.ok, true, JSON.stringify(f));
  return orchestration;
}

/** The pointer brief's command in a sub-agent's first message, and the brief once read. */
function briefOf(view: View) {
  const pointer = view.userText.match(/Run `(peaks sub-agent brief --record [^`]+)` and follow it/);
  if (!pointer) throw new Error(`no pointer brief in ${view.userText.slice(0, 300)}`);
  const brief = view.toolResults[0] ?? "";
  const slice = SLICES.find((s) => brief.includes(`- Slice: ${s.id};`));
  return { pointer: pointer[1], brief, slice };
}

function returned(brief: string, file: string, extra: Record<string, unknown> = {}): Turn {
  const facts = briefFacts(brief);
  return text(
    `Slice built.\n${
      JSON.stringify({
        role: facts.role,
        rid: facts.rid,
        status: "ok",
        artefacts: [],
        warnings: [],
        blockedReason: null,
        reason: null,
        diffSummary: `added ${file}`,
        ...extra,
      })
    }`,
  );
}

const heartbeatDone = (brief: string, project: string) =>
  CLAUDE.shell(
    `peaks sub-agent heartbeat --record ${
      briefFacts(brief).record
    } --project ${project} --status done --progress 100 --note completed --json`,
  );

/**
 * Two slices in a clean repository, the peaks project at `sub` inside it ("" for its top level)
 * and the host started there: the Agent calls carry `isolation: "worktree"`, the host makes a
 * worktree per sub-agent, each writes its file relative to the directory it was started in, and
 * finalize merges both from the worktree the notification names.
 */
async function cleanTree(sub: string) {
  let project = "";
  const orchestrator = orchestration();
  /**
   * Slice -> the directory it was started in, the top level git named there, and where its two
   * later shell commands ran (the first begun as the brief says, the second not).
   */
  const startedIn = new Map<string, { started: string; top: string; shells: string[] }>();
  const subAgent = (view: View): Turn => {
    const { pointer, brief, slice } = briefOf(view);
    if (view.turn === 0) return tools(CLAUDE.shell(pointer));
    if (!slice) throw new Error(`no slice named in the brief: ${brief.slice(0, 2000)}`);
    const [started, top] = (view.toolResults[1] ?? "").trim().split("\n");
    // The project's folder inside the worktree, as the brief names it (none at the top level).
    const folder = brief.match(/The project is its folder (\S+)\/: work only inside/)?.[1] ?? "";
    const cwd = join(started ?? "", folder);
    switch (view.turn) {
      case 1:
        // Where it stands, and the top level the brief asks for in its return JSON.
        return tools(CLAUDE.shell("pwd && git rev-parse --show-toplevel"));
      case 2:
        // A shell command as the brief says to begin it, then one without: where each ran.
        return tools(CLAUDE.shell(`${folder ? `cd ${folder} && ` : ""}pwd`));
      case 3:
        return tools(CLAUDE.shell("pwd"));
      case 4:
        startedIn.set(slice.id, {
          started,
          top,
          shells: [view.toolResults[2]?.trim() ?? "", view.toolResults[3]?.trim() ?? ""],
        });
        return tools(CLAUDE.write(join(cwd, slice.file), `built by slice ${slice.id}\n`));
      case 5:
        return tools(heartbeatDone(brief, project));
      default:
        return returned(brief, slice.file, { worktree: top });
    }
  };
  const at = (path: string) => sub ? `${sub}/${path}` : path;
  await using w = await world(CLAUDE, (view: View, exchange: Exchange) => {
    if (view.tools.length === 0) return sideAnswer(view);
    if (view.userText.includes(ASK)) return orchestrator.turn(view, exchange);
    return subAgent(view);
  }, sub ? { files: { [at("README.md")]: "# app\n" } } : {});
  const repo = w.sandbox.project;
  project = join(repo, sub);
  const { git, status } = await prepare(w, project);
  const head = await git("rev-parse", "HEAD");
  // Nothing uncommitted but peaks' own folder and the local settings its permissions install
  // wrote: neither counts, so the main tree is clean for peaks and the host isolates.
  assertEquals(await status(), `?? ${at(".claude/settings.local.json")}\n`);

  await runHost(w, project);
  const { checked, envelope, seen } = orchestrator.state;

  // peaks' envelopes: the slice check, then one host-isolated Agent call per slice.
  assertEquals(checked.data.levels, [SLICES.map((s) => s.id)]);
  assertEquals(envelope.data.slices.map((s: { kind: string }) => s.kind), ["host", "host"]);
  assert(!envelope.warnings.some((x: { code: string }) => x.code === "HOST_ISOLATION_SKIPPED"));
  // The Agent calls the host received and ran carried the envelope's arguments, isolation included.
  const orchestrated = finalizesOf(w);
  const fanout = toolUses(orchestrated.at(-1)!, 2);
  assertEquals(fanout.length, SLICES.length);
  for (const [i, use] of fanout.entries()) {
    assertEquals(use.name, "Agent");
    assertEquals(use.input, envelope.data.toolCalls[i].args);
    assertEquals(use.input.isolation, "worktree");
  }
  // The host started each sub-agent in a worktree of its own and reported it when it finished.
  const hostDir = join(repo, ".claude", "worktrees");
  assertEquals(seen.length, SLICES.length);
  for (const slice of SLICES) {
    const { started, top, shells } = startedIn.get(slice.id) ??
      { started: "", top: "", shells: [] };
    assertMatch(top, new RegExp(`^${hostDir}/agent-[0-9a-f]+$`));
    // At the worktree's top level, even with the host started in the project's folder; a `cd`
    // lasts for its own command only.
    assertEquals(started, top);
    assertEquals(shells, [join(top, sub), top]);
    assert(seen.some((n) => n.worktreePath === top), `no notification named ${top}`);
  }
  assertEquals(new Set([...startedIn.values()].map((s) => s.top)).size, SLICES.length);

  // Finalize merged both slices into the main tree and removed the host's worktrees.
  for (const slice of SLICES) {
    assertEquals(
      await Deno.readTextFile(join(project, slice.file)),
      `built by slice ${slice.id}\n`,
    );
  }
  for (const id of envelope.data.records) {
    const record = await readJson(join(project, recordPathOf(project, id)));
    assertEquals([record.status, record.result?.status], ["done", "ok"]);
    assertEquals(record.worktree.kind, "host");
    assertEquals(record.worktree.state, "merged");
    assertStringIncludes(record.worktree.branch, "worktree-agent-");
  }
  const listed = (await git("worktree", "list", "--porcelain")).split("\n")
    .filter((l) => l.startsWith("worktree "));
  assertEquals(listed, [`worktree ${repo}`]);
  assertEquals(await git("branch", "--list", "worktree-agent-*"), "");
  assertEquals(await Array.fromAsync(Deno.readDir(hostDir)), []);
  // Working-tree changes only: nothing committed, nothing staged; the merged files are
  // intent-to-add, so git diff shows them.
  assertEquals(await git("rev-parse", "HEAD"), head);
  assertEquals(await git("diff", "--cached", "--name-only"), "");
  assertEquals(
    await status(),
    [
      ...SLICES.map((s) => ` A ${at(s.file)}\n`),
      `?? ${at(".claude/settings.local.json")}\n`,
    ].join(""),
  );
}

Deno.test(
  "claude-code slices: Agent calls with isolation worktree, the host's worktrees merged back at finalize",
  { sanitizeOps: false, sanitizeResources: false },
  () => cleanTree(""),
);

Deno.test(
  "claude-code slices of a clean project in a subfolder of its repository: the host's worktrees, each sub-agent sent into the project's folder there, merged back",
  { sanitizeOps: false, sanitizeResources: false },
  () => cleanTree("app"),
);

/**
 * Two slices with uncommitted changes in the main tree, the peaks project at `sub` inside the
 * repository ("" for its top level) and the host started there: peaks makes the worktrees under
 * the project's `.claude/worktrees`, one sub-agent writes with the Write tool and one with a
 * shell redirect, and finalize merges both.
 */
async function dirtyTree(sub: string) {
  let project = "";
  const orchestrator = orchestration();
  /** Slice -> the worktree its brief named, and the result of its write as the host gave it. */
  const wrote = new Map<string, { dir: string; result: string }>();
  const subAgent = (view: View): Turn => {
    const { pointer, brief, slice } = briefOf(view);
    if (view.turn === 0) return tools(CLAUDE.shell(pointer));
    if (!slice) throw new Error(`no slice named in the brief: ${brief.slice(0, 2000)}`);
    const dir = brief.match(/not in the project root: (\S+)/)?.[1];
    if (!dir) throw new Error(`no worktree named in the brief: ${brief.slice(0, 2000)}`);
    const target = join(dir, slice.file);
    const content = `built by slice ${slice.id}`;
    switch (view.turn) {
      case 1:
        // One slice writes with the Write tool, the other through the shell.
        return tools(
          slice.id === "api"
            ? CLAUDE.write(target, `${content}\n`)
            : CLAUDE.shell(`cd ${dir} && printf '%s\\n' '${content}' > ${slice.file}`),
        );
      case 2:
        wrote.set(slice.id, { dir, result: view.toolResults[1] ?? "" });
        return tools(heartbeatDone(brief, project));
      default:
        return returned(brief, slice.file);
    }
  };
  const at = (path: string) => sub ? `${sub}/${path}` : path;
  await using w = await world(CLAUDE, (view: View, exchange: Exchange) => {
    if (view.tools.length === 0) return sideAnswer(view);
    if (view.userText.includes(ASK)) return orchestrator.turn(view, exchange);
    return subAgent(view);
  }, { files: { [at("src/index.txt")]: "first\n" } });
  const repo = w.sandbox.project;
  project = join(repo, sub);
  const { git, status } = await prepare(w, project);
  const head = await git("rev-parse", "HEAD");
  // What a real session leaves uncommitted: a changed file and a new one.
  await Deno.writeTextFile(join(project, "src", "index.txt"), "changed, not committed\n");
  await Deno.writeTextFile(join(project, "NOTES.md"), "# notes\n");

  await runHost(w, project);
  const { checked, envelope, seen } = orchestrator.state;

  // The host's worktrees would start from HEAD: peaks makes its own, where the host lets its
  // sub-agents write, and the Agent calls carry no isolation.
  assertEquals(checked.data.levels, [SLICES.map((s) => s.id)]);
  assert(
    envelope.warnings.some((x: { code: string }) => x.code === "HOST_ISOLATION_SKIPPED"),
    JSON.stringify(envelope.warnings),
  );
  assertEquals(envelope.data.slices.map((s: { kind: string }) => s.kind), ["peaks", "peaks"]);
  // The project's own folder, where the host runs: under the top level's, from a subfolder, the
  // host refused the sub-agents' writes ("Permission to use Write has been denied").
  const hostRoot = join(project, ".claude", "worktrees");
  for (const s of envelope.data.slices) {
    assertMatch(
      resolve(project, s.worktree),
      new RegExp(`^${hostRoot}/peaks-p-[0-9a-f]{8}/r1/rd-`),
    );
  }
  const orchestrated = finalizesOf(w);
  const fanout = toolUses(orchestrated.at(-1)!, 2);
  assertEquals(fanout.length, SLICES.length);
  for (const [i, use] of fanout.entries()) {
    assertEquals(use.name, "Agent");
    assertEquals(use.input, envelope.data.toolCalls[i].args);
    assertEquals(use.input.isolation, undefined);
  }
  // Each sub-agent wrote in the worktree its brief named, and the host let it.
  assertEquals(seen.length, SLICES.length);
  assertEquals(seen.map((n) => n.worktreePath), [null, null]);
  for (const slice of SLICES) {
    const done = wrote.get(slice.id) ?? { dir: "", result: "" };
    assert(done.dir.startsWith(join(hostRoot, "peaks-p-")), done.dir);
    // Under .git/ the same Write was "Permission to use Write has been denied".
    assert(!/denied|permission/i.test(done.result), `${slice.id}: ${done.result}`);
    if (slice.id === "api") assertStringIncludes(done.result, "File created successfully");
  }

  // Finalize merged both into the main tree, the uncommitted changes untouched.
  for (const slice of SLICES) {
    assertEquals(
      await Deno.readTextFile(join(project, slice.file)),
      `built by slice ${slice.id}\n`,
    );
  }
  assertEquals(
    await Deno.readTextFile(join(project, "src", "index.txt")),
    "changed, not committed\n",
  );
  for (const id of envelope.data.records) {
    const record = await readJson(join(project, recordPathOf(project, id)));
    assertEquals([record.status, record.result?.status], ["done", "ok"]);
    assertEquals([record.worktree.kind, record.worktree.state], ["peaks", "merged"]);
    // The patch's files, as git names them: from the repository's top level.
    assertEquals(record.worktree.files, [
      at(SLICES.find((s) => s.id === record.worktree.node)!.file),
    ]);
  }
  const listed = (await git("worktree", "list", "--porcelain")).split("\n")
    .filter((l) => l.startsWith("worktree "));
  assertEquals(listed, [`worktree ${repo}`]);
  assertEquals(await git("branch", "--list", "peaks/*"), "");
  assertEquals(await Array.fromAsync(Deno.readDir(hostRoot)), []);
  assertEquals(await git("rev-parse", "HEAD"), head);
  assertEquals(await git("diff", "--cached", "--name-only"), "");
  const tracked = [` M ${at("src/index.txt")}\n`, ...SLICES.map((s) => ` A ${at(s.file)}\n`)];
  assertEquals(
    await status(),
    [
      ...tracked.sort((a, b) => a.slice(3).localeCompare(b.slice(3))),
      `?? ${at(".claude/settings.local.json")}\n`,
      `?? ${at("NOTES.md")}\n`,
    ].join(""),
  );
}

Deno.test(
  "claude-code slices with uncommitted changes: peaks' worktrees under .claude/worktrees, written by the Write tool and a shell redirect, merged back at finalize",
  { sanitizeOps: false, sanitizeResources: false },
  () => dirtyTree(""),
);

Deno.test(
  "claude-code slices of a project in a subfolder of its repository, the host started there: the same worktrees, writes allowed, merged back",
  { sanitizeOps: false, sanitizeResources: false },
  () => dirtyTree("app"),
);
