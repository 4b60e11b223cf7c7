/**
 * Random calls generated from the command table: known and unknown flags,
 * allowed enum values, and random strings (control characters, Unicode,
 * paths, numbers, huge values). Whatever the call, peaks answers with exit
 * 0-3, one JSON envelope and no crash. A fixed seed runs in the normal test
 * run; PEAKS_PROPERTY_RUNS and PEAKS_PROPERTY_SEED make a longer run.
 */
import { assertEquals } from "@std/assert";
import { GLOBAL_FLAGS } from "../../lib/cli/globals.ts";
import { countFromEnv, type Rng, rng, seedFromEnv } from "../support/prng.ts";
import { isPathFlag, loadCommands, type LoadedCommand } from "./cases.ts";
import { freshFixture } from "./fixture.ts";
import { UNICODE } from "./model.ts";
import { judge, runLocal } from "./runner.ts";

const RUNS = countFromEnv("PEAKS_PROPERTY_RUNS", 250);
const SEED = seedFromEnv("PEAKS_PROPERTY_SEED", 7);
const PER_FIXTURE = 60;

function randomText(r: Rng): string {
  const pieces = [
    () => String.fromCharCode(r.int(0, 31)),
    () => String.fromCodePoint(r.int(0x80, 0x2fff)),
    () => r.pick(Object.values(UNICODE)),
    () => r.pick(["..", "/", "\\", "~", "$HOME", "*", "'", '"', "`", ";", "|", "&", " "]),
    () => r.pick(["sk-", "ghp_", "eyJ", "-----BEGIN", "AKIA"]),
    () => Math.random().toString(36).slice(2, 2 + r.int(1, 8)),
    () => String(r.int(-1e6, 1e6)),
  ];
  let out = "";
  const n = r.int(0, 12);
  for (let i = 0; i < n; i++) out += r.pick(pieces)();
  return r.chance(0.03) ? out.repeat(r.int(1000, 20000)) : out;
}

function randomValue(r: Rng, values: readonly string[] | undefined, path: boolean): string {
  const roll = r.next();
  if (values && roll < 0.5) return r.pick(values);
  if (path && roll < 0.7) {
    return r.pick(["prompt.md", "../x", "/etc/hosts", "link-out/secret.txt", ".peaks", ""]);
  }
  if (roll < 0.8) return r.pick(["", "0", "1", "-1", "30s", "true", "{}", "[]", "null", "1e9"]);
  return randomText(r);
}

function randomArgv(r: Rng, command: LoadedCommand): string[] {
  const argv = [...command.name.split(" ")];
  for (const arg of command.spec.args ?? []) {
    if (r.chance(0.85)) argv.push(arg.values && r.chance(0.6) ? r.pick(arg.values) : randomText(r));
  }
  const names = Object.keys(command.spec.flags);
  const count = r.int(0, Math.min(5, names.length + 1));
  for (let i = 0; i < count; i++) {
    if (r.chance(0.1) || names.length === 0) {
      argv.push(`--${randomText(r).replace(/^-+/, "") || "x"}`, randomText(r));
      continue;
    }
    const name = r.pick(names);
    const def = command.spec.flags[name];
    if (def.kind === "boolean") {
      argv.push(r.chance(0.9) ? `--${name}` : `--${name}=${randomText(r)}`);
    } else if (r.chance(0.1)) argv.push(`--${name}`);
    else argv.push(`--${name}`, randomValue(r, def.values, isPathFlag(def.placeholder)));
  }
  if (r.chance(0.1)) argv.push(`--${r.pick(Object.keys(GLOBAL_FLAGS))}`);
  argv.push(...(command.cases?.tame ?? []));
  return argv;
}

Deno.test(`property: ${RUNS} random calls from the command table never crash (seed ${SEED})`, async () => {
  const commands = await loadCommands();
  const r = rng(SEED);
  const problems: string[] = [];
  for (let done = 0; done < RUNS; done += PER_FIXTURE) {
    await using fx = await freshFixture();
    for (let i = done; i < Math.min(RUNS, done + PER_FIXTURE); i++) {
      const argv = randomArgv(r, r.pick(commands));
      const outcome = await runLocal(fx, [...argv, "--json", "--project", fx.root]);
      const found = judge(outcome, { exit: [0, 1, 2, 3] }, []);
      if (found.length) problems.push(`#${i} ${JSON.stringify(argv).slice(0, 300)}: ${found}`);
    }
  }
  assertEquals(problems, [], `replay with PEAKS_PROPERTY_SEED=${SEED}`);
});
