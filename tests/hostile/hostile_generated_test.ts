/**
 * Mutations generated from the command table: for every command, its
 * baseline call with one flag or argument made hostile at a time (unknown
 * flag, wrong type, empty, huge, control characters and NUL, Unicode edge
 * cases, `..`/absolute/symlinked paths for every path flag, a missing required
 * flag, a duplicate). Expectations come from each flag's own declaration.
 * Runs in-process (the same kernel and commands) to stay fast; the table
 * cases cover the real binary.
 */
import { assertEquals } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import type { FlagDef } from "../../lib/infra/command/spec.ts";
import { isPathFlag, loadCommands } from "./cases.ts";
import { type Fixture, freshFixture } from "./fixture.ts";
import { big, UNICODE } from "./model.ts";
import { type Expectation, runJudged, runLocal } from "./runner.ts";

interface Mutation {
  name: string;
  argv: string[];
  expected: Expectation;
  /** An error code this call must never answer with. */
  never?: string;
}

const ANY = [0, 1, 2, 3];

const HOSTILE_VALUES: Array<[string, string]> = [
  ["empty", ""],
  ["NUL byte", "a\u0000b"],
  ["control character", "a\u0007b"],
  ["escape sequence", "\u001b[2J"],
  ["newline", "line1\nline2"],
  ["huge", big(1_100_000)],
  ["dot-dot", "../../etc/passwd"],
  ["negative", "-1"],
  ["not a number", "NaN"],
  ["too many digits", "99999999999999999999"],
  ...Object.entries(UNICODE).map(([k, v]) => [`unicode ${k}`, v] as [string, string]),
];

/** Removes a flag (and its value) from argv. */
function without(argv: string[], name: string, def: FlagDef): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === `--${name}`) {
      if (def.kind !== "boolean") i++;
      continue;
    }
    if (argv[i].startsWith(`--${name}=`)) continue;
    out.push(argv[i]);
  }
  return out;
}

function mutations(
  words: string[],
  commonBaseline: string[],
  flags: Record<string, FlagDef>,
  fx: Fixture,
  flagBaselines: Record<string, (fx: Fixture) => string[]> = {},
): Mutation[] {
  const baseline = commonBaseline;
  const out: Mutation[] = [{
    name: "unknown flag",
    argv: [...baseline, "--surely-not-a-flag", "1"],
    expected: { exit: 2, code: "UNKNOWN_FLAG" },
  }, {
    name: "unknown flag that looks like a global",
    argv: [...baseline, "--projects", "x"],
    expected: { exit: 2, code: "UNKNOWN_FLAG" },
  }];
  for (const [name, def] of Object.entries(flags)) {
    const own = flagBaselines[name]?.(fx) ?? baseline;
    const rest = without(own, name, def);
    const given = rest.length !== own.length;
    if (def.required) {
      out.push({
        name: `--${name} missing`,
        argv: rest,
        expected: { exit: 2, code: "MISSING_FLAG" },
      });
    }
    if (def.kind === "boolean") {
      out.push({
        name: `--${name}=maybe`,
        argv: [...rest, `--${name}=maybe`],
        expected: { exit: 2, code: "INVALID_FLAG_VALUE" },
      });
      continue;
    }
    if (given && def.kind !== "list") {
      out.push({
        name: `--${name} twice`,
        argv: [...own, `--${name}`, "x"],
        expected: { exit: 2, code: "DUPLICATE_FLAG" },
      });
    }
    out.push({
      name: `--${name} without a value`,
      argv: [...rest, `--${name}`],
      expected: { exit: 2, code: "MISSING_FLAG_VALUE" },
    });
    for (const [label, value] of HOSTILE_VALUES) {
      const accepted = def.schema.safeParse(value).success;
      out.push({
        name: `--${name} ${label}`,
        argv: [...rest, `--${name}`, value],
        expected: accepted ? { exit: ANY } : { exit: 2, code: "INVALID_FLAG_VALUE" },
      });
    }
    if (isPathFlag(def.placeholder)) {
      const escapes: Array<[string, string]> = [
        ["with ..", "../outside/secret.txt"],
        ["absolute outside", join(fx.outside, "secret.txt")],
        ["through a symlink out", "link-out/secret.txt"],
      ];
      for (const [label, value] of escapes) {
        out.push({
          name: `path --${name} ${label}`,
          argv: [...rest, `--${name}`, value],
          expected: { exit: 2, code: "PATH_OUTSIDE_PROJECT" },
        });
      }
      // A name that starts with two dots is inside the project, not a climb out of it.
      out.push({
        name: `path --${name} named ..notes.md`,
        argv: [...rest, `--${name}`, "..notes.md"],
        expected: { exit: ANY },
        never: "PATH_OUTSIDE_PROJECT",
      });
    }
  }
  const positional = baseline.slice(words.length).findIndex((w) => !w.startsWith("--"));
  if (positional !== -1) {
    const at = words.length + positional;
    for (const [label, value] of HOSTILE_VALUES) {
      const argv = [...baseline];
      argv[at] = value;
      out.push({ name: `argument ${label}`, argv, expected: { exit: ANY } });
    }
  }
  return out;
}

const commands = await loadCommands();

for (const { name, spec, cases } of commands) {
  if (!cases) continue;
  Deno.test(`generated hostile input: ${name}`, async () => {
    await using fx = await freshFixture();
    await Deno.writeTextFile(join(fx.root, "..notes.md"), "notes\n");
    const words = name.split(" ");
    const baseline = cases.baseline(fx);
    const problems: string[] = [];
    const base = await runLocal(fx, [...baseline, "--json", "--project", fx.root]);
    if (base.code === 2) problems.push(`baseline is a usage error: ${base.stdout}`);
    for (const m of mutations(words, baseline, spec.flags, fx, cases.flagBaselines)) {
      const argv = [...m.argv, "--json", "--project", fx.root];
      const { outcome, problems: found } = await runJudged(
        fx,
        m.expected,
        () => runLocal(fx, argv),
        { hash: false },
      );
      if (m.never && outcome.json?.code === m.never) found.push(`answered ${m.never}`);
      problems.push(...found.map((p) => `${m.name}: ${p}`));
    }
    assertEquals(problems, []);
  });
}
