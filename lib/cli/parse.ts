import { parseArgs } from "../infra/std.ts";
import { usageError } from "../infra/errors.ts";
import { printable } from "../infra/ids.ts";
import type { AnyCommand, CommandSpec, FlagDef, FlagDefs, Input } from "../infra/command/spec.ts";
import { nearest } from "../infra/command/suggest.ts";
import { GLOBAL_FLAGS, splitToken } from "./globals.ts";

function flagList(flags: FlagDefs): string {
  return Object.entries(flags).filter(([, def]) => !def.hidden).map(([name]) => `--${name}`).join(
    ", ",
  );
}

/**
 * Parses a command's own argv (globals already removed) into typed input.
 * Pass 1 normalises and checks shape (unknown, duplicate, missing values);
 * std's parseArgs then builds the value object; each flag's check vets its value.
 */
export function parseCommandArgs<F extends FlagDefs>(
  spec: CommandSpec<F>,
  argv: string[],
): Input<F> {
  const flags = spec.flags as FlagDefs;
  const { normalized, positionals, seen } = normalize(spec, argv);
  const parsed = parseArgs(normalized, {
    string: Object.entries(flags).filter(([, d]) => d.kind !== "boolean").map(([n]) => n),
    boolean: Object.entries(flags).filter(([, d]) => d.kind === "boolean").map(([n]) => n),
    collect: Object.entries(flags).filter(([, d]) => d.kind === "list").map(([n]) => n),
  });
  const checked = checkValues(flags, parsed, seen);
  const values: Record<string, unknown> = {};
  for (const [name, def] of Object.entries(flags)) {
    if (seen.has(name)) values[name] = checked[name];
    else if (def.kind === "list") values[name] = [];
    else if (def.kind === "boolean") values[name] = false;
    else if (def.required) {
      throw usageError(
        "MISSING_FLAG",
        `${commandName(spec)} needs --${name} ${def.placeholder ?? ""}`.trimEnd() + ".",
        { data: { flag: name, allowed: def.values ?? [] } },
      );
    } else values[name] = def.default;
  }
  return { flags: values as Input<F>["flags"], ...bindArgs(spec, positionals), given: seen };
}

/** Pass 1: every flag as `--name` or `--name=value`, positionals apart; shape errors here. */
function normalize(
  spec: AnyCommand,
  argv: string[],
): { normalized: string[]; positionals: string[]; seen: Set<string> } {
  const flags = spec.flags as FlagDefs;
  const normalized: string[] = [];
  const positionals: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i];
    if (token === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    const [name, inline] = splitToken(token);
    if (name === undefined) {
      if (token.startsWith("-") && token !== "-" && !/^-\d/.test(token)) {
        throw unknownFlag(spec, token);
      }
      positionals.push(token);
      continue;
    }
    const def = Object.hasOwn(flags, name) ? flags[name] : undefined;
    if (!def || name === "_") throw unknownFlag(spec, token);
    if (def.kind !== "list" && seen.has(name)) {
      throw usageError("DUPLICATE_FLAG", `--${name} was given more than once.`, {
        data: { flag: name },
      });
    }
    seen.add(name);
    if (def.kind === "boolean") {
      if (inline !== undefined && inline !== "true" && inline !== "false") {
        throw usageError("INVALID_FLAG_VALUE", `--${name} is a switch: use --${name} alone.`, {
          data: { flag: name, allowed: ["true", "false"] },
        });
      }
      normalized.push(inline === undefined ? `--${name}` : `--${name}=${inline}`);
      continue;
    }
    const value = inline ?? argv[i + 1];
    if (inline === undefined) i++;
    if (value === undefined) {
      throw usageError(
        "MISSING_FLAG_VALUE",
        `--${name} needs a value${def.placeholder ? ` ${def.placeholder}` : ""}.`,
        { data: { flag: name, allowed: def.values ?? [] } },
      );
    }
    normalized.push(`--${name}=${value}`);
  }
  return { normalized, positionals, seen };
}

/**
 * Each given value goes through its flag's check (list flags: every item).
 * The checks come with the command's declaration (flag.ts).
 */
function checkValues(
  flags: FlagDefs,
  parsed: Record<string, unknown>,
  seen: Set<string>,
): Record<string, unknown> {
  const checked: Record<string, unknown> = {};
  for (const [name, def] of Object.entries(flags)) {
    if (!seen.has(name)) continue;
    const items = def.kind === "list" ? [parsed[name]].flat() : [parsed[name]];
    const out: unknown[] = [];
    for (const item of items) {
      const result = def.schema.safeParse(item);
      if (!result.success) {
        throw usageError(
          "INVALID_FLAG_VALUE",
          `--${name} ${result.error.issues[0].message} (got ${
            JSON.stringify(printable(String(item)))
          }).`,
          { data: { flag: name, allowed: def.values ?? [] } },
        );
      }
      out.push(result.data);
    }
    checked[name] = def.kind === "list" ? out : out[0];
  }
  return checked;
}

function commandName(spec: AnyCommand): string {
  return `peaks ${spec.name}`;
}

function unknownFlag(spec: AnyCommand, token: string): Error {
  const name = token.replace(/^-+/, "").split("=")[0];
  const candidates = [
    ...Object.keys(spec.flags).filter((n) => !spec.flags[n].hidden),
    ...Object.keys(GLOBAL_FLAGS),
  ];
  const suggestion = nearest(name, candidates);
  const hint = suggestion ? ` Did you mean --${suggestion}?` : "";
  return usageError(
    "UNKNOWN_FLAG",
    `${commandName(spec)} has no flag ${JSON.stringify(printable(token))}.${hint} Flags: ${
      flagList(spec.flags as FlagDefs) || "(none)"
    }.`,
    {
      data: { flag: name, suggestion: suggestion ? `--${suggestion}` : null },
      nextActions: [`${commandName(spec)} --help`],
    },
  );
}

function bindArgs(
  spec: AnyCommand,
  positionals: string[],
): { args: Record<string, string | undefined>; rest: string[] } {
  const defs = spec.args ?? [];
  const args: Record<string, string | undefined> = {};
  let rest: string[] = [];
  let index = 0;
  for (const def of defs) {
    if (def.variadic) {
      rest = positionals.slice(index);
      index = positionals.length;
      if (def.required && rest.length === 0) throw missingArg(spec, def.name);
      args[def.name] = rest.join(" ") || undefined;
      continue;
    }
    const value = positionals[index++];
    if (value === undefined && def.required) throw missingArg(spec, def.name);
    if (value !== undefined && def.values && !def.values.includes(value)) {
      throw usageError(
        "INVALID_ARGUMENT",
        `<${def.name}> must be one of ${def.values.join(", ")} (got ${
          JSON.stringify(printable(value))
        }).`,
        { data: { argument: def.name, allowed: def.values } },
      );
    }
    args[def.name] = value;
  }
  if (index < positionals.length) {
    const extra = positionals.slice(index);
    throw usageError(
      "UNEXPECTED_ARGUMENT",
      `${commandName(spec)} does not take ${extra.length > 1 ? "the arguments" : "the argument"} ${
        extra.map((v) => JSON.stringify(printable(v))).join(" ")
      }.`,
      {
        data: { arguments: extra.map((v) => printable(v)) },
        nextActions: [`${commandName(spec)} --help`],
      },
    );
  }
  return { args, rest };
}

function missingArg(spec: AnyCommand, name: string): Error {
  return usageError("MISSING_ARGUMENT", `${commandName(spec)} needs <${name}>.`, {
    data: { argument: name },
    nextActions: [`${commandName(spec)} --help`],
  });
}

export type { FlagDef };
