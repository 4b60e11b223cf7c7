/**
 * The state-tree attacks of state_attacks.ts, each tried on every command's
 * baseline and on the deeper calls, through the real entry point. Whatever a
 * command answers, it must answer in time (no FIFO or device blocks it), with
 * exit 0-3, one envelope and no crash; it must not change anything outside
 * the project (a symlinked state folder is never written through); a refusal
 * of a link or a special file names a repair; and in human mode nothing it
 * prints carries a terminal control sequence.
 *
 * Which calls an attack is tried on is measured, not declared: each call runs
 * once on a clean fixture under Deno's permission audit, and an attack on a
 * file or folder is tried on every call that read or wrote there. A new
 * command, or an old one that starts reading some state, is covered at once.
 */
import { assert, assertEquals } from "@std/assert";
import { join, relative } from "../../lib/infra/std.ts";
import { baseEnv, ENTRY, peaksArgs, pool } from "../support/cli.ts";
import { checkState } from "../support/state_check.ts";
import { runInProcess } from "../support/ctx.ts";
import { loadCommands } from "./cases.ts";
import {
  diffSnapshots,
  envFor,
  type Fixture,
  fixtureTemplate,
  freshFixture,
  snapshot,
} from "./fixture.ts";
import { CRASH_TEXT } from "./runner.ts";
import {
  CWD_ATTACKS,
  DEEP_CALLS,
  ESCAPE_ATTACKS,
  FOLDER_LINK_ATTACKS,
  REPAIR_ATTACKS,
  SPECIAL_FILE_ATTACKS,
  type StateAttack,
  TERMINAL_UNSAFE,
  UNREADABLE_ATTACKS,
} from "./state_attacks.ts";

/** Far above any honest run on a loaded machine; a blocked read never ends. */
const HANG_MS = 45_000;
const REFUSALS_WITH_REPAIR = ["SYMLINK_REFUSED", "NOT_A_DIRECTORY", "RECORD_UNREADABLE"];

const commands = await loadCommands();

type Call = { label: string; argv: (fx: Fixture) => string[] };

function calls(): Call[] {
  const out: Call[] = [];
  for (const { name, cases } of commands) {
    if (cases) out.push({ label: name, argv: cases.baseline });
  }
  for (const deep of DEEP_CALLS) {
    out.push({ label: "", argv: deep });
  }
  return out;
}

let touchedByCall: Promise<Map<string, Set<string>>> | undefined;

/** The project-relative paths each call reads or writes on a clean fixture. */
function touched(): Promise<Map<string, Set<string>>> {
  touchedByCall ??= (async () => {
    const planned = calls();
    const sets = await pool(planned.length, 4, async (i) => {
      await using fx = await freshFixture();
      const audit = join(fx.outside, "..", "audit.jsonl");
      await run(fx, planned[i].argv(fx), { name: "audit", setup: async () => {} }, audit);
      const paths = new Set<string>();
      const text = await Deno.readTextFile(audit).catch(() => "");
      for (const line of text.split("\n")) {
        const value = line ? JSON.parse(line).value : null;
        if (typeof value === "string" && value.startsWith(fx.root)) {
          paths.add(relative(fx.root, value));
        }
      }
      return paths;
    });
    return new Map(planned.map((call, i) => [key(call), sets[i]]));
  })();
  return touchedByCall;
}

const TEMPLATE = await fixtureTemplate();
const key = (call: Call) => call.argv(TEMPLATE).join(" ");

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
  hung: boolean;
}

async function run(
  fx: Fixture,
  argv: string[],
  attack: StateAttack,
  audit?: string,
): Promise<Ran> {
  const env: Record<string, string> = {
    ...(await baseEnv({ cwd: fx.root, home: fx.home })),
    ...envFor(fx),
  };
  if (audit) env.DENO_AUDIT_PERMISSIONS = audit;
  const project = attack.cwdGone ? [] : ["--project", fx.root];
  const words = [...argv, ...(attack.human ? [] : ["--json"]), ...project];
  let program = Deno.execPath();
  let args = peaksArgs(words);
  if (attack.cwdGone) {
    // `deno run` itself needs a working directory, so the kernel is run in-process with the
    // cwd the runtime reports for a deleted folder (see processCtx).
    const out = await runInProcess(words, { cwd: "", env: { HOME: fx.home, ...envFor(fx) } });
    return { ...out, hung: false };
  }
  if (attack.denyDac) {
    args = ["--bounding-set=-dac_override,-dac_read_search", program, ...args];
    program = "setpriv";
  }
  const child = new Deno.Command(program, {
    args,
    cwd: fx.root,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let hung = false;
  const timer = setTimeout(() => {
    hung = true;
    child.kill("SIGKILL");
  }, HANG_MS);
  const out = await child.output();
  clearTimeout(timer);
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr), hung };
}

function judgeRun(ran: Ran, attack: StateAttack, outsideChanges: string[]): string[] {
  const problems: string[] = [];
  if (ran.hung) return [`still running after ${HANG_MS} ms (blocked on a special file?)`];
  if (![0, 1, 2, 3].includes(ran.code)) problems.push(`exit ${ran.code} is outside 0-3`);
  if (CRASH_TEXT.test(ran.stdout) || CRASH_TEXT.test(ran.stderr)) {
    problems.push(`crash text: ${(ran.stderr || ran.stdout).slice(0, 300)}`);
  }
  if (outsideChanges.length) {
    problems.push(`changed outside the project: ${outsideChanges.slice(0, 4).join(", ")}`);
  }
  if (attack.human) {
    const text = ran.stdout + ran.stderr;
    const bad = TERMINAL_UNSAFE.exec(text);
    if (bad) {
      problems.push(`printed U+${bad[0].charCodeAt(0).toString(16)}: ${JSON.stringify(text)}`);
    }
    return problems;
  }
  let json;
  try {
    json = JSON.parse(ran.stdout);
  } catch {
    problems.push(`stdout is not one JSON envelope: ${ran.stdout.slice(0, 200)}`);
    return problems;
  }
  if (json.code === "ACCESS_DENIED" && attack.denyDac) {
    problems.push(`one unreadable record failed the whole call: ${json.message}`);
  }
  if (REFUSALS_WITH_REPAIR.includes(json.code) && !json.nextActions?.length) {
    problems.push(`${json.code} without a repair: ${json.message}`);
  }
  return problems;
}

/** The calls that touched what the attack replaces (every call for an attack on no one path). */
async function callsFor(attack: StateAttack): Promise<Call[]> {
  if (!attack.targets) return calls();
  const seen = await touched();
  const targets = attack.targets(TEMPLATE).map((t) => relative(TEMPLATE.root, t));
  return calls().filter((call) =>
    [...seen.get(key(call)) ?? []].some((path) =>
      targets.some((t) => path === t || path.startsWith(`${t}/`))
    )
  );
}

/** The shell line of a repair, with `peaks` running this checkout with the binary's permissions. */
async function runRepair(fx: Fixture, line: string): Promise<string | undefined> {
  const deno = peaksArgs([]).slice(0, -1).map((a) => `'${a}'`).join(" ");
  const script = `peaks() { '${Deno.execPath()}' ${deno} '${ENTRY}' "$@"; }\n${line}`;
  const env = { ...(await baseEnv({ cwd: fx.root, home: fx.home })), ...envFor(fx) };
  const out = await new Deno.Command("sh", {
    args: ["-c", script],
    cwd: fx.root,
    env,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (out.success) return undefined;
  const said = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  return `the repair ${line} failed: ${said.slice(0, 300)}`;
}

/**
 * A torn file answered with RECORD_UNREADABLE: its first repair, run as
 * written, must leave a state where the same call no longer finds it
 * unreadable, and every batch is whole again (numbers, members, records).
 */
async function repairWorks(fx: Fixture, argv: string[], ran: Ran): Promise<string[]> {
  const json = JSON.parse(ran.stdout);
  if (json.code !== "RECORD_UNREADABLE") return [];
  const failed = await runRepair(fx, json.nextActions[0]);
  if (failed) return [failed];
  const again = await run(fx, argv, { name: "again", setup: async () => {} });
  const after = again.stdout ? JSON.parse(again.stdout) : {};
  const problems: string[] = [];
  if (after.code === "RECORD_UNREADABLE" && after.data?.path === json.data?.path) {
    problems.push(`still unreadable after ${json.nextActions[0]}: ${after.message}`);
  }
  // A batch file is rebuilt from its records, so the batch must be whole again.
  if (!/batch-[^/]*\.json$/.test(String(json.data?.path))) return problems;
  const state = await checkState(fx.root);
  const batchViolations = state.violations.filter((v) => /batch|member|number/.test(v));
  if (batchViolations.length) problems.push(...batchViolations.slice(0, 3));
  return problems;
}

async function tryAttack(t: Deno.TestContext, attack: StateAttack): Promise<void> {
  const planned = await callsFor(attack);
  const results = await pool(planned.length, 4, async (i) => {
    const call = planned[i];
    await using fx = await freshFixture();
    await attack.setup(fx);
    const argv = call.argv(fx);
    const before = await snapshot([fx.outside]);
    const ran = await run(fx, argv, attack);
    const after = await snapshot([fx.outside]);
    const problems = judgeRun(ran, attack, diffSnapshots(before, after));
    if (attack.repair && !problems.length) problems.push(...await repairWorks(fx, argv, ran));
    return { argv, problems };
  });
  for (const { argv, problems } of results) {
    await t.step(argv.slice(0, 3).join(" "), () => assertEquals(problems, []));
  }
  assert(results.length > 0, "no call touches what this attack replaces");
}

for (
  const attack of [
    ...FOLDER_LINK_ATTACKS,
    ...SPECIAL_FILE_ATTACKS,
    ...UNREADABLE_ATTACKS,
    ...ESCAPE_ATTACKS,
    ...REPAIR_ATTACKS,
    ...CWD_ATTACKS,
  ]
) {
  Deno.test(`state attack: ${attack.name}`, (t) => tryAttack(t, attack));
}
