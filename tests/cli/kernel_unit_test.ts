import { assert, assertEquals, assertMatch, assertThrows } from "@std/assert";
import { COMMANDS, dottedName } from "../../lib/cli/table.ts";
import { parseCommandArgs } from "../../lib/cli/parse.ts";
import { splitGlobals } from "../../lib/cli/globals.ts";
import { defineCommand, type FlagDefs, parseDuration } from "../../lib/infra/command/spec.ts";
import { flag } from "../../lib/infra/command/flag.ts";
import { PeaksError } from "../../lib/infra/errors.ts";
import { VERSION } from "../../lib/infra/command/build.ts";
import { nearest } from "../../lib/infra/command/suggest.ts";
import { runInProcess } from "../support/ctx.ts";

const sample = defineCommand({
  name: "sample run",
  args: [{ name: "role", description: "role", required: true }],
  flags: {
    prompt: flag.string("prompt text", { allowControl: true }),
    brief: flag.enum(["inline", "pointer"], "brief mode", { default: "inline" }),
    interval: flag.int("seconds", { min: 5, max: 600, default: 30 }),
    timeout: flag.duration("how long"),
    artifact: flag.list("paths"),
    force: flag.boolean("force it"),
    "no-throttle": flag.boolean("skip the budget"),
  },
  examples: ["peaks sample run rd"],
  run: () => Promise.resolve({ data: {} }),
});

function usage(fn: () => unknown, code: string): PeaksError {
  const error = assertThrows(fn, PeaksError);
  assertEquals(error.code, code);
  assertEquals(error.exit, 2);
  return error;
}

Deno.test("flags parse into typed values with defaults", () => {
  const input = parseCommandArgs(sample, [
    "rd",
    "--prompt",
    "-",
    "--interval=45",
    "--timeout",
    "2m",
    "--artifact",
    "a.md",
    "--artifact",
    "b.md",
    "--no-throttle",
  ]);
  assertEquals(input.args.role, "rd");
  assertEquals(input.flags.prompt, "-");
  assertEquals(input.flags.brief, "inline");
  assertEquals(input.flags.interval, 45);
  assertEquals(input.flags.timeout, 120_000);
  assertEquals(input.flags.artifact, ["a.md", "b.md"]);
  assertEquals(input.flags.force, false);
  assertEquals(input.flags["no-throttle"], true);
  assert(input.given.has("prompt") && !input.given.has("brief"));
});

Deno.test("a string flag takes the next word even when it starts with a dash", () => {
  const input = parseCommandArgs(sample, ["rd", "--prompt", "--not-a-flag"]);
  assertEquals(input.flags.prompt, "--not-a-flag");
});

Deno.test("usage errors name the flag and the allowed values", () => {
  const bad = usage(
    () => parseCommandArgs(sample, ["rd", "--brief", "huge"]),
    "INVALID_FLAG_VALUE",
  );
  assertEquals(bad.data.flag, "brief");
  assertEquals(bad.data.allowed, ["inline", "pointer"]);
  assertMatch(bad.message, /inline, pointer/);
  usage(() => parseCommandArgs(sample, ["rd", "--interval", "4"]), "INVALID_FLAG_VALUE");
  usage(() => parseCommandArgs(sample, ["rd", "--interval", "ten"]), "INVALID_FLAG_VALUE");
  usage(() => parseCommandArgs(sample, ["rd", "--timeout", "soon"]), "INVALID_FLAG_VALUE");
  usage(() => parseCommandArgs(sample, ["rd", "--artifact", "a\u0000b"]), "INVALID_FLAG_VALUE");
  const unknown = usage(() => parseCommandArgs(sample, ["rd", "--promt", "x"]), "UNKNOWN_FLAG");
  assertEquals(unknown.data.suggestion, "--prompt");
  usage(() => parseCommandArgs(sample, ["rd", "--prompt", "a", "--prompt", "b"]), "DUPLICATE_FLAG");
  usage(() => parseCommandArgs(sample, ["rd", "--prompt"]), "MISSING_FLAG_VALUE");
  usage(() => parseCommandArgs(sample, ["--force"]), "MISSING_ARGUMENT");
  usage(() => parseCommandArgs(sample, ["rd", "qa"]), "UNEXPECTED_ARGUMENT");
  usage(() => parseCommandArgs(sample, ["rd", "-x"]), "UNKNOWN_FLAG");
  usage(() => parseCommandArgs(sample, ["rd", "--force=maybe"]), "INVALID_FLAG_VALUE");
  usage(() => parseCommandArgs(sample, ["rd", "--__proto__", "x"]), "UNKNOWN_FLAG");
});

Deno.test("global flags are found anywhere and --pretty implies --json", () => {
  const split = splitGlobals(["--pretty", "session", "info", "--project", "/x", "--active"]);
  assertEquals(split.json, true);
  assertEquals(split.pretty, true);
  assertEquals(split.project, "/x");
  assertEquals(split.rest, ["session", "info", "--active"]);
  assertThrows(() => splitGlobals(["--project"]), PeaksError);
  assertThrows(() => splitGlobals(["--project", "a", "--project=b"]), PeaksError);
});

Deno.test("durations read the usual units", () => {
  assertEquals(parseDuration("500ms"), 500);
  assertEquals(parseDuration("10s"), 10_000);
  assertEquals(parseDuration("5m"), 300_000);
  assertEquals(parseDuration("30d"), 30 * 86_400_000);
  assertEquals(parseDuration("1500"), 1500);
  assertEquals(parseDuration("-1s"), undefined);
});

Deno.test("nearest prefers a containing candidate, then edit distance", () => {
  assertEquals(nearest("disp", ["dispatch", "list"]), "dispatch");
  assertEquals(nearest("lsit", ["dispatch", "list"]), "list");
});

Deno.test("the version constant matches deno.json", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  assertEquals(VERSION, config.version);
});

Deno.test("every table entry loads a command of the same name with help material", async () => {
  const names = new Set<string>();
  for (const entry of COMMANDS) {
    assert(!names.has(entry.name), `duplicate entry ${entry.name}`);
    names.add(entry.name);
    const spec = (await entry.load()).default;
    assertEquals(spec.name, entry.name);
    assert(entry.summary.length > 10 && entry.summary.length <= 80, `${entry.name} summary length`);
    assert(spec.examples.length >= 1, `${entry.name} has an example`);
    for (const [name, def] of Object.entries(spec.flags as FlagDefs)) {
      assertMatch(name, /^[a-z0-9][a-z0-9-]*$/, `${entry.name} --${name}`);
      assert(def.description.length > 5, `${entry.name} --${name} needs a description`);
    }
    for (const example of spec.examples) {
      assert(
        example.startsWith(`peaks ${entry.name}`) || example.includes(`| peaks ${entry.name}`),
        example,
      );
    }
  }
});

Deno.test("every example in the table parses against its own command", async () => {
  for (const entry of COMMANDS) {
    const spec = (await entry.load()).default;
    for (const example of spec.examples) {
      const line = example.slice(example.indexOf("peaks ") + 6);
      const all = line.match(/"[^"]*"|'[^']*'|\S+/g) ?? [];
      // Stop at shell syntax (redirects, pipes, sequencing): only the peaks words are parsed.
      const stop = all.findIndex((w) => /^(>|>>|\||&&|;|2>)/.test(w));
      const words = stop === -1 ? all : all.slice(0, stop);
      const argv = words.map((w) => w.replace(/^["']|["']$/g, ""));
      const split = splitGlobals(argv);
      const used = entry.name.split(" ").length;
      parseCommandArgs(spec, split.rest.slice(used));
    }
  }
});

Deno.test("help is generated for the top level, every group and every command", async () => {
  const top = await runInProcess(["--help"], { cwd: "/" });
  assertEquals(top.code, 0);
  for (const entry of COMMANDS) {
    // Hidden plumbing (the detached supervisor) has help of its own but stays out of the list.
    assertEquals(top.stdout.includes(`  ${entry.name} `), !entry.hidden, entry.name);
  }
  assertMatch(top.stdout, /Exit codes:/);
  for (const entry of COMMANDS) {
    const help = await runInProcess([...entry.name.split(" "), "--help"], { cwd: "/" });
    assertEquals(help.code, 0, entry.name);
    assertMatch(help.stdout, /Usage: peaks /);
    assertMatch(help.stdout, /Examples:/);
    assertMatch(help.stdout, /Exit codes:/);
    const json = await runInProcess([...entry.name.split(" "), "--help", "--json"], { cwd: "/" });
    assertEquals(json.json.command, `${dottedName(entry.name)}.help`);
    assert(Array.isArray(json.json.data.flags));
  }
  const group = await runInProcess(["session", "--help"], { cwd: "/" });
  assertEquals(group.code, 0);
  assertMatch(group.stdout, /session info/);
  const bare = await runInProcess(["session"], { cwd: "/" });
  assertEquals(bare.code, 2);
  assertMatch(bare.stderr, /MISSING_SUBCOMMAND/);
});
