/**
 * Secret hygiene: known secret shapes pushed through every flag, argument and
 * unknown-flag path of every command (in JSON and human mode) never reach
 * stdout or stderr unredacted in an error, a warning or a log line; and a
 * prompt body never appears on stdout outside data.toolCall.args.prompt, nor
 * in any error. Success data may echo what the caller stored (a title, a
 * channel value): that is the answer asked for, not a log.
 */
import { assert, assertEquals } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import type { FlagDef } from "../../lib/infra/command/spec.ts";
import { loadCommands } from "./cases.ts";
import { type Fixture, freshFixture } from "./fixture.ts";
import { type Outcome, runLocal, runReal } from "./runner.ts";
import { heartbeatArgs } from "../support/subagent.ts";

/** Each secret with the part that must never be printed. */
export const SECRETS: Array<[string, string]> = [
  ["Bearer abcdefghijklmnopqrstuvwxyz012345", "abcdefghijklmnopqrstuvwxyz012345"],
  ["sk-proj-Q1w2E3r4T5y6U7i8O9p0AsDfGhJk", "Q1w2E3r4T5y6U7i8O9p0AsDfGhJk"],
  ["ghp_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0EdCbA", "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0EdCbA"],
  ["github_pat_11AAAAAAA0abcdefghij_KLMNOPQRSTUVWXYZ0123456789", "KLMNOPQRSTUVWXYZ0123456789"],
  ["AKIAQWERTYUIOPASDFGH", "QWERTYUIOPASDFGH"],
  [
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwZWFrcy10ZXN0In0.c2lnbmF0dXJlLXNob3VsZC1oaWRl",
    "c2lnbmF0dXJlLXNob3VsZC1oaWRl",
  ],
  [
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----",
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ",
  ],
  ["api_key=Sup3rS3cretValue42", "Sup3rS3cretValue42"],
  ["password=hunter2-correct-horse", "hunter2-correct-horse"],
];

/**
 * Secrets found in what a run printed as errors, warnings or logs: stderr, a
 * failure envelope, a success envelope's warnings. A success's data, and
 * human-mode stdout (errors go to stderr there), are the caller's own answer.
 */
export function leaks(outcome: Outcome): string[] {
  const failed = outcome.json?.ok === false;
  const visible = failed
    ? `${outcome.stdout}\n${outcome.stderr}`
    : `${outcome.stderr}\n${JSON.stringify(outcome.json?.warnings ?? [])}`;
  return SECRETS.filter(([, core]) => visible.includes(core) || visible.includes(core.slice(0, 16)))
    .map(([secret]) => secret.slice(0, 12));
}

/**
 * Every secret as an unknown flag and a stray argument; each flag and
 * positional argument with three secrets in turn (rotating, so every flag
 * meets several shapes and every shape many flags).
 */
function sweep(name: string, baseline: string[], flags: string[], argCount: number): string[][] {
  const words = name.split(" ");
  const calls: string[][] = [];
  for (const [secret] of SECRETS) calls.push([...baseline, `--${secret}`], [...baseline, secret]);
  const pick = (i: number) => [0, 1, 2].map((k) => SECRETS[(i * 3 + k) % SECRETS.length][0]);
  flags.forEach((flag, i) => {
    for (const secret of pick(i)) calls.push([...baseline, `--${flag}`, secret]);
  });
  for (let i = 0; i < argCount; i++) {
    for (const secret of pick(flags.length + i)) {
      const argv = [...baseline];
      argv[words.length + i] = secret;
      calls.push(argv);
    }
  }
  return calls;
}

const commands = await loadCommands();

Deno.test("secrets pushed through every flag and argument of every command are never printed raw", async () => {
  const problems: string[] = [];
  let runs = 0;
  for (const { name, spec, cases } of commands) {
    if (!cases) continue;
    await using fx = await freshFixture();
    const baseline = cases.baseline(fx);
    const flags = Object.entries(spec.flags as Record<string, FlagDef>).filter(([, d]) =>
      d.kind !== "boolean"
    ).map(([n]) => n);
    const args = baseline.slice(name.split(" ").length).filter((w) => !w.startsWith("--")).length;
    for (const argv of sweep(name, baseline, flags, Math.min(args, (spec.args ?? []).length))) {
      for (const mode of [["--json"], []]) {
        runs++;
        const outcome = await runLocal(fx, [...argv, ...mode, "--project", fx.root]);
        const found = leaks(outcome);
        if (found.length) problems.push(`${JSON.stringify(argv).slice(0, 160)} ${mode}: ${found}`);
      }
    }
  }
  assertEquals(problems, []);
  assert(runs > 800, `${runs} runs`);
});

const MARKER = "PROMPT-BODY-7f3a9c-do-not-echo";

function withoutToolPrompt(json: Record<string, unknown>): string {
  const copy = structuredClone(json) as { data?: { toolCall?: { args?: { prompt?: string } } } };
  if (copy.data?.toolCall?.args) delete copy.data.toolCall.args.prompt;
  return JSON.stringify(copy);
}

async function real(fx: Fixture, argv: string[], env: Record<string, string> = {}) {
  return await runReal({ name: "", argv: () => argv, exit: [0, 1, 2, 3], env }, fx, [
    ...argv,
    "--project",
    fx.root,
  ]);
}

Deno.test("the prompt body appears only in data.toolCall.args.prompt, never in errors", async () => {
  await using fx = await freshFixture();
  const body = `${MARKER}\n${"context ".repeat(50)}`;
  await Deno.writeTextFile(join(fx.root, "task.md"), body);
  const dispatch = ["sub-agent", "dispatch", "rd", "--prompt-file", "task.md"];

  const inline = await real(fx, [...dispatch, "--brief", "inline", "--json"]);
  assertEquals(inline.code, 0, inline.stdout);
  assert(String(inline.json.data.toolCall.args.prompt).includes(MARKER));
  assert(!withoutToolPrompt(inline.json).includes(MARKER));
  assert(!inline.stderr.includes(MARKER));

  const pointer = await real(fx, [...dispatch, "--brief", "pointer", "--json"]);
  assertEquals(pointer.code, 0, pointer.stdout);
  assert(!pointer.stdout.includes(MARKER) && !pointer.stderr.includes(MARKER));

  const human = await real(fx, dispatch);
  assertEquals(human.code, 0, human.stderr);
  assert(!human.stdout.includes(MARKER) && !human.stderr.includes(MARKER));

  const failing: Array<[string[], Record<string, string>]> = [
    [[...dispatch, "--ide", "gemini"], {}],
    [[...dispatch, "--batch-id", "bad/id"], {}],
    [[...dispatch, "--heartbeat-interval", "1"], {}],
    [[...dispatch, "--prompt", "-"], {}],
    [["sub-agent", "dispatch", "rd rd", "--prompt-file", "task.md"], {}],
    [["sub-agent", "dispatch", "rd", "--prompt", body, "--session-id", "nope"], {}],
    [["context", "check", "--prompt-file", "task.md", "--context-window", "10"], {}],
    [["context", "check", "--prompt-file", "task.md", "--use-headroom"], {
      HEADROOM_BASE_URL: "http://192.0.2.1:9",
    }],
  ];
  for (const [argv, env] of failing) {
    for (const mode of [["--json"], []]) {
      const outcome = await real(fx, [...argv, ...mode], env);
      const shown = `${outcome.stdout}\n${outcome.stderr}`;
      assert(!shown.includes(MARKER), `${argv.join(" ")} ${mode}: ${shown.slice(0, 300)}`);
    }
  }
});

Deno.test("secrets in stored values never come back in warnings or errors of the real binary", async () => {
  await using fx = await freshFixture();
  const calls: Array<(secret: string) => string[]> = [
    (
      s,
    ) => [
      "sub-agent",
      "share",
      "--batch",
      fx.batch,
      "--key",
      "rd.note",
      "--value",
      "1",
      "--from",
      s,
    ],
    () => ["sub-agent", "share", "--batch", fx.batch, "--key", "rd.note", "--value", "2"],
    (
      s,
    ) => [
      ...heartbeatArgs(fx.record, "1"),
      "--note",
      s,
    ],
    (
      s,
    ) => [
      "request",
      "transition",
      "r1",
      "--role",
      "prd",
      "--state",
      "confirmed-by-user",
      "--reason",
      s,
    ],
    (s) => ["sub-agent", "finalize", "--record", fx.record, "--outcome", "failed", "--error", s],
    (
      s,
    ) => [
      ...heartbeatArgs(fx.record, "1"),
      "--note",
      s,
    ],
    (s) => ["preferences", "set", "--key", "headroom.baseUrl", "--value", s],
    (s) => ["session", "title", fx.sid, s],
  ];
  // Two passes with the shapes rotating: every shape meets several paths, every path several shapes.
  for (let i = 0; i < calls.length * 2; i++) {
    const argv = calls[i % calls.length](SECRETS[i % SECRETS.length][0]);
    for (const mode of [["--json"], []]) {
      const outcome = await real(fx, [...argv, ...mode]);
      assertEquals(
        leaks(outcome),
        [],
        `${argv.join(" ")} ${mode}: ${outcome.stdout}${outcome.stderr}`,
      );
    }
  }
});
