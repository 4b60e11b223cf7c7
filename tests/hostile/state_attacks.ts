/**
 * Attacks on the state tree itself (a cloned repository can carry anything
 * inside `.peaks/`), each applied to a fresh fixture before one command runs:
 * state folders replaced by symlinks out of the project, state files replaced
 * by FIFOs or symlinks, batch members naming devices or paths, a record the
 * OS refuses to read, stored fields holding terminal escapes. The calls tried
 * are every command's baseline plus the calls below that reach deeper state.
 */
import { dirname, join } from "../../lib/infra/std.ts";
import type { Fixture } from "./fixture.ts";
import {
  agentsDir,
  batchFile,
  bindingFile,
  channelFile,
  editJson,
  presenceFile,
  recordAbs,
  requestFile,
  sessionDir,
  truncate,
  write,
} from "./model.ts";

export interface StateAttack {
  name: string;
  setup: (fx: Fixture) => Promise<void>;
  /** What the attack replaces: it is tried on every call that read or wrote there. */
  targets?: (fx: Fixture) => string[];
  /** Run the child without the capabilities that let root ignore file modes. */
  denyDac?: boolean;
  /** Human mode: the output must carry no control or bidi characters. */
  human?: boolean;
  /** A RECORD_UNREADABLE answer's first repair is run as written; then the call must work. */
  repair?: boolean;
  /** Started in a folder that was deleted, without --project. */
  cwdGone?: boolean;
}

/** Calls that reach state the baselines do not (a batch-wide finalize, orphan cleanup, …). */
export const DEEP_CALLS: Array<(fx: Fixture) => string[]> = [
  (fx) => ["sub-agent", "dispatch", "qa", "--batch-id", fx.batch, "--prompt", "go"],
  // A request id makes a dispatch look for the request's planned DAG (the fan-out check).
  () => ["sub-agent", "dispatch", "rd", "--request-id", "001-fanout", "--prompt", "go"],
  (fx) => ["sub-agent", "finalize", "--batch", fx.batch, "--outcome", "done"],
  () => ["sub-agent", "cleanup", "--older-than", "0s"],
  () => ["sub-agent", "cleanup", "--orphans", "--kill"],
  () => ["skill", "presence", "--header"],
  (
    fx,
  ) => ["sub-agent", "heartbeat", "--record", fx.record, "--status", "done", "--progress", "100"],
];

async function mkfifo(path: string): Promise<void> {
  await Deno.remove(path, { recursive: true }).catch(() => {});
  await Deno.mkdir(dirname(path), { recursive: true });
  const out = await new Deno.Command("mkfifo", { args: [path] }).output();
  if (!out.success) throw new Error(`mkfifo ${path} failed`);
}

/** Moves a state folder outside the project and leaves a symlink to it in its place. */
async function linkOut(fx: Fixture, folder: string, label: string): Promise<void> {
  const target = join(fx.outside, `moved-${label}`);
  await Deno.mkdir(folder, { recursive: true });
  await Deno.rename(folder, target);
  await Deno.symlink(target, folder);
}

/** A detached run folder with a pid file nobody holds (what `cleanup --orphans --kill` removes). */
async function fakeRun(fx: Fixture): Promise<void> {
  const run = join(sessionDir(fx), "detached", "r1", "rd-orphan");
  await write(join(run, "pid"), "999999\n");
}

const FOLDER_LINKS: Array<[string, (fx: Fixture) => string]> = [
  [".peaks", (fx) => join(fx.root, ".peaks")],
  ["_sub_agents/<sid>", agentsDir],
  ["_runtime/<sid>", sessionDir],
  ["_runtime/<sid>/detached", (fx) => join(sessionDir(fx), "detached")],
  ["_sub_agents/_archive", (fx) => join(fx.root, ".peaks", "_sub_agents", "_archive")],
  ["_sub_agents/<sid>/shared", (fx) => join(agentsDir(fx), "shared")],
];

const STATE_FILES: Array<[string, (fx: Fixture) => string]> = [
  ["record", recordAbs],
  ["batch file", batchFile],
  ["channel", channelFile],
  ["presence", presenceFile],
  ["session metadata", (fx) => join(sessionDir(fx), "session.json")],
  ["session binding", bindingFile],
  ["request", requestFile],
];

/** Where a request's planned DAG is kept (the fixture has none; a dispatch with a request id looks). */
const sliceDag = (fx: Fixture) => join(sessionDir(fx), "sc", "slice-dag-001-fanout.json");

/** Class 1: every state folder a symlink to a folder outside the project. */
export const FOLDER_LINK_ATTACKS: StateAttack[] = FOLDER_LINKS.map(([label, path]) => ({
  name: `${label} is a symlink out of the project`,
  targets: (fx) => [path(fx)],
  setup: async (fx) => {
    await fakeRun(fx);
    await linkOut(fx, path(fx), label.replaceAll(/[^a-z]/gi, ""));
  },
}));

/** Class 2: every state file a FIFO or a symlink, and batch members that name no record. */
export const SPECIAL_FILE_ATTACKS: StateAttack[] = [
  ...STATE_FILES.map(([label, path]): StateAttack => ({
    name: `the ${label} is a FIFO`,
    targets: (fx) => [path(fx)],
    setup: (fx) => mkfifo(path(fx)),
  })),
  {
    name: "the planned slice DAG is a FIFO",
    targets: (fx) => [sliceDag(fx)],
    setup: (fx) => mkfifo(sliceDag(fx)),
  },
  ...STATE_FILES.map(([label, path]): StateAttack => ({
    name: `the ${label} is a symlink to a file outside`,
    targets: (fx) => [path(fx)],
    setup: async (fx) => {
      await Deno.remove(path(fx)).catch(() => {});
      await Deno.symlink(join(fx.outside, "secret.txt"), path(fx));
    },
  })),
  ...["/dev/zero", "../../../../outside/secret.txt", "fifo.json"].map((member): StateAttack => ({
    name: `a batch member names ${member}`,
    targets: (fx) => [batchFile(fx)],
    setup: async (fx) => {
      await mkfifo(join(agentsDir(fx), "fifo.json"));
      await editJson(batchFile(fx), (batch) => {
        (batch.members as Array<{ record: string }>)[0].record = member;
      });
    },
  })),
  {
    name: "a declared artefact is a FIFO",
    targets: (fx) => [recordAbs(fx)],
    setup: async (fx) => {
      await mkfifo(join(fx.root, "pipe.md"));
      await editJson(recordAbs(fx), (record) => {
        record.declaredArtifacts = ["pipe.md"];
      });
    },
  },
];

/** Class 7: every state file torn in the middle; the offered repair must repair it. */
export const REPAIR_ATTACKS: StateAttack[] = STATE_FILES.map(([label, path]) => ({
  name: `the ${label} is torn, and its repair is run`,
  targets: (fx) => [path(fx)],
  repair: true,
  setup: (fx) => truncate(path(fx)),
}));

/** Class 5: one record the OS refuses to read (mode 000, root's override dropped). */
export const UNREADABLE_ATTACKS: StateAttack[] = [{
  name: "the record has mode 000",
  targets: (fx) => [recordAbs(fx)],
  denyDac: true,
  setup: async (fx) => {
    // The second record of the batch must still be listed, finalized, archived.
    await Deno.chmod(recordAbs(fx), 0o000);
  },
}];

const ESCAPES = "\u001b]52;c;ZXZpbA==\u0007\u001b]0;pwned\u0007\u001b[2J\u009b31m\u202eevil";

/** Class 8: stored fields carrying clipboard, title, clear-screen and bidi sequences. */
export const ESCAPE_ATTACKS: StateAttack[] = [{
  name: "stored fields carry terminal escapes",
  targets: (fx) => [
    presenceFile(fx),
    recordAbs(fx),
    batchFile(fx),
    join(sessionDir(fx), "session.json"),
  ],
  human: true,
  setup: async (fx) => {
    await editJson(presenceFile(fx), (p) => {
      p.skill = `peaks${ESCAPES}`;
      p.role = `rd${ESCAPES}`;
      p.gate = `g${ESCAPES}`;
    });
    await editJson(recordAbs(fx), (r) => {
      r.role = `rd${ESCAPES}`;
      r.requestId = `r1${ESCAPES}`;
    });
    await editJson(join(sessionDir(fx), "session.json"), (m) => {
      m.title = `t${ESCAPES}`;
    });
    await editJson(batchFile(fx), (b) => {
      (b.members as Array<{ role: string }>)[0].role = `rd${ESCAPES}`;
      b.label = `L${ESCAPES}`;
    });
  },
}];

/** Class 11: every call started in a folder deleted under the shell. */
export const CWD_ATTACKS: StateAttack[] = [{
  name: "the working directory was deleted",
  cwdGone: true,
  setup: async () => {},
}];

/** What a terminal would act on: C0 (but tab and newline), DEL, C1, bidi controls. */
export const TERMINAL_UNSAFE =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
