/**
 * The kernel: argv -> command -> envelope -> exit code. Commands never print
 * envelopes and never exit; everything they throw ends up here.
 */
import { type PeaksError, usageError } from "../infra/errors.ts";
import type { Ctx } from "../infra/command/ctx.ts";
import { printable } from "../infra/ids.ts";
import {
  ALIASES,
  type CommandEntry,
  COMMANDS,
  dottedName,
  findCommand,
  groupCommands,
  isGroup,
} from "./table.ts";
import { type Split, splitGlobals } from "./globals.ts";
import { nearest } from "../infra/command/suggest.ts";
import {
  failure,
  renderData,
  success,
  toPeaksError,
  writeHumanFailure,
  writeHumanWarnings,
  writeJson,
} from "./envelope.ts";
import { VERSION } from "../infra/command/build.ts";
import { withOutputMode } from "../infra/shell.ts";
import { safeText } from "../infra/terminal_text.ts";

async function fail(ctx: Ctx, command: string, error: unknown): Promise<number> {
  const peaksError = toPeaksError(error);
  const envelope = failure(command, peaksError);
  envelope.nextActions = envelope.nextActions.map((a) => withOutputMode(a, ctx.global));
  if (ctx.global.json) await writeJson(ctx, envelope);
  else await writeHumanFailure(ctx, envelope);
  if (peaksError.code === "INTERNAL_ERROR" && ctx.env.get("PEAKS_DEBUG")) {
    const cause = peaksError.cause;
    await ctx.stderr.write(`${cause instanceof Error ? cause.stack : String(cause)}\n`);
  }
  return peaksError.exit;
}

async function printHelp(ctx: Ctx, command: string, text: string, data: unknown): Promise<number> {
  if (ctx.global.json) await writeJson(ctx, success(command, data));
  else await ctx.stdout.write(`${text}\n`);
  return 0;
}

function unknownCommand(words: string[]): PeaksError {
  const typed = words.slice(0, 2).join(" ");
  const candidates = COMMANDS.filter((c) => !c.hidden).map((c) => c.name);
  const suggestion = isGroup(words[0]) && words[1]
    ? nearest(`${words[0]} ${words[1]}`, candidates.filter((c) => c.startsWith(`${words[0]} `)))
    : nearest(words.slice(0, 2).join(" "), candidates);
  const target = suggestion;
  return usageError(
    "COMMAND_NOT_FOUND",
    `Unknown command "${printable(typed)}".${
      target ? ` Did you mean "peaks ${target}"?` : ""
    } Run peaks --help for the list of commands.`,
    {
      data: { command: printable(typed), suggestion: target ? `peaks ${target}` : null },
      nextActions: target ? [`peaks ${target} --help`] : ["peaks --help"],
    },
  );
}

/** Leading words before the first flag are the command path. */
function commandWords(rest: string[]): string[] {
  const words: string[] = [];
  for (const token of rest) {
    if (token.startsWith("-")) break;
    words.push(token);
    if (words.length === 2) break;
  }
  return words;
}

/**
 * An alias word (ALIASES) in the command position becomes its flag:
 * `peaks help session list` runs as `peaks session list --help`.
 */
export function expandAlias(argv: string[]): string[] {
  let i = 0;
  while (i < argv.length && argv[i].startsWith("--") && argv[i] !== "--") {
    i += argv[i] === "--project" ? 2 : 1;
  }
  const alias = ALIASES.find((a) => a.word === argv[i]);
  if (!alias) return argv;
  return [...argv.slice(0, i), ...argv.slice(i + 1), alias.flag];
}

export async function main(argv: string[], ctx: Ctx): Promise<number> {
  let split: Split;
  argv = expandAlias(argv);
  try {
    split = splitGlobals(argv);
  } catch (error) {
    ctx.global.json = argv.includes("--json") || argv.includes("--pretty");
    ctx.global.pretty = argv.includes("--pretty");
    return await fail(ctx, "peaks", error);
  }
  ctx.global.json = split.json;
  ctx.global.pretty = split.pretty;
  ctx.global.project = split.project;

  const words = commandWords(split.rest);
  if (words.length === 0) return await noCommand(ctx, split);
  const found = findCommand(words);
  if (!found) return await notACommand(ctx, split, words);
  return await runCommand(ctx, split, found);
}

/** `peaks`, `peaks --help`, `peaks --version`, or a stray flag. */
async function noCommand(ctx: Ctx, split: Split): Promise<number> {
  if (split.version) {
    if (ctx.global.json) {
      await writeJson(ctx, success("version", { version: VERSION, deno: Deno.version.deno }));
    } else await ctx.stdout.write(`peaks ${VERSION}\n`);
    return 0;
  }
  if (split.rest.length === 0 || split.help) {
    const { topHelp } = await import("./help.ts");
    return await printHelp(ctx, "help", topHelp(), {
      commands: COMMANDS.filter((c) => !c.hidden).map((c) => ({
        name: c.name,
        summary: c.summary,
      })),
    });
  }
  return await fail(
    ctx,
    "peaks",
    usageError(
      "UNKNOWN_FLAG",
      `Unknown flag ${JSON.stringify(printable(split.rest[0]))}. Run peaks --help.`,
      { nextActions: ["peaks --help"] },
    ),
  );
}

/** A group without its command (its help), or words that name nothing (did you mean). */
async function notACommand(ctx: Ctx, split: Split, words: string[]): Promise<number> {
  if (!isGroup(words[0]) || (words.length !== 1 && !split.help)) {
    return await fail(ctx, "peaks", unknownCommand(words));
  }
  const { groupHelp } = await import("./help.ts");
  const text = groupHelp(words[0]);
  if (split.help) {
    return await printHelp(ctx, `${words[0]}.help`, text, {
      commands: groupCommands(words[0]).filter((c) => !c.hidden).map((c) => ({
        name: c.name,
        summary: c.summary,
      })),
    });
  }
  return await fail(
    ctx,
    words[0],
    usageError("MISSING_SUBCOMMAND", `peaks ${words[0]} needs a command.\n\n${text}`, {
      data: { commands: groupCommands(words[0]).map((c) => c.name) },
      nextActions: [`peaks ${words[0]} --help`],
    }),
  );
}

/** Loads the command, parses its flags, runs it and prints its envelope. */
async function runCommand(
  ctx: Ctx,
  split: Split,
  found: { entry: CommandEntry; used: number },
): Promise<number> {
  const { entry, used } = found;
  const command = dottedName(entry.name);
  const started = performance.now();
  let loaded = started;
  try {
    const [module, { parseCommandArgs }] = await Promise.all([entry.load(), import("./parse.ts")]);
    loaded = performance.now();
    const spec = module.default;
    if (split.help) {
      const { commandHelp, commandHelpData } = await import("./help.ts");
      return await printHelp(
        ctx,
        `${command}.help`,
        commandHelp(entry, spec),
        commandHelpData(entry, spec),
      );
    }
    const input = parseCommandArgs(spec, split.rest.slice(used));
    const result = await spec.run(input, ctx);
    const warnings = result.warnings ?? [];
    // A nextAction runs as written and answers in the caller's output mode.
    const nextActions = (result.nextActions ?? []).map((a) => withOutputMode(a, ctx.global));
    if (ctx.global.json) {
      await writeJson(ctx, success(command, result.data, warnings, nextActions));
    } else if (!result.raw) {
      const text = result.human ?? renderData(result.data);
      const next = nextActions.length
        ? `\nnext:\n${nextActions.map((a) => `  ${a}`).join("\n")}`
        : "";
      if (text || next) await ctx.stdout.write(`${safeText(`${text}${next}`)}\n`);
      await writeHumanWarnings(ctx, warnings);
    } else {
      await writeHumanWarnings(ctx, warnings);
    }
    return result.exitCode ?? 0;
  } catch (error) {
    return await fail(ctx, command, withHelpNext(error, entry));
  } finally {
    if (ctx.env.get("PEAKS_PROFILE")) await profileLine(ctx, started, loaded);
  }
}

/**
 * `PEAKS_PROFILE=1`: one line on stderr splitting the call into the time
 * before the command (runtime start and the kernel's modules), loading the
 * command's modules, and its own work with its output (`deno task bench --profile`).
 * A call that took locks adds how many, the time from asking to holding
 * (waiting, a rehearsal included) and the time holding them (the storms of
 * `deno task bench` report these).
 */
async function profileLine(ctx: Ctx, started: number, loaded: number): Promise<void> {
  const ms = (n: number) => Math.round(n * 10) / 10;
  const line: Record<string, number> = {
    toCommandMs: ms(started),
    loadMs: ms(loaded - started),
    workMs: ms(performance.now() - loaded),
  };
  // Already loaded when the command took a lock; loading it otherwise finds no turns.
  const { lockTime } = await import("../infra/fs/lock.ts");
  if (lockTime.turns > 0) {
    line.lockTurns = lockTime.turns;
    line.lockWaitMs = ms(lockTime.waitMs);
    line.lockHoldMs = ms(lockTime.holdMs);
  }
  await ctx.stderr.write(`peaks-profile ${JSON.stringify(line)}\n`);
}

/**
 * A usage error (exit 2) that names no way forward gets the command's help as
 * its next step, so every refused call says where to look.
 */
function withHelpNext(error: unknown, entry: CommandEntry): unknown {
  const peaksError = toPeaksError(error);
  if (peaksError.exit === 2 && peaksError.nextActions.length === 0) {
    peaksError.nextActions.push(`peaks ${entry.name} --help`);
  }
  return peaksError;
}
