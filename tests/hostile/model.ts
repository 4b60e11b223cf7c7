/** The shape of hostile-input cases and the small file functions their setups use. */
import { dirname, join } from "../../lib/infra/std.ts";
import type { Fixture } from "./fixture.ts";

export interface HostileCase {
  name: string;
  /** The command's own words and flags (the command name, --json and --project are added). */
  argv: (fx: Fixture) => string[];
  /** Prepares the copy before the snapshot is taken. */
  setup?: (fx: Fixture) => Promise<void>;
  /** Allowed exit codes. */
  exit: number | number[];
  /** Expected error code (failure envelopes) when the case is refused. */
  code?: string | string[];
  stdin?: string;
  env?: Record<string, string>;
  /** Run with the project mounted read-only. */
  readOnly?: boolean;
  /** Nothing may change even when the command succeeds. */
  unchanged?: boolean;
  /** Runs only when this flag exists on the command (cases ready for a flag still to come). */
  whenFlag?: string;
  /** When the flag above is missing: what the command must answer instead. */
  without?: { exit: number; code: string };
}

export interface CommandCases {
  /** A valid call that generated mutations start from (each flag is mutated in turn). */
  baseline: (fx: Fixture) => string[];
  cases: HostileCase[];
  /** A different baseline for the generated mutations of one flag (flags that exclude others). */
  flagBaselines?: Record<string, (fx: Fixture) => string[]>;
  /** Appended to random property runs (for example a short --timeout for watch). */
  tame?: string[];
}

export const recordAbs = (fx: Fixture) => join(fx.root, fx.record);
export const sessionDir = (fx: Fixture) => join(fx.root, ".peaks", "_runtime", fx.sid);
export const agentsDir = (fx: Fixture) => join(fx.root, ".peaks", "_sub_agents", fx.sid);
export const batchFile = (fx: Fixture) => join(agentsDir(fx), `batch-${fx.batch}.json`);
export const channelFile = (fx: Fixture) => join(agentsDir(fx), "shared", `${fx.batch}.json`);
export const requestFile = (fx: Fixture) => join(sessionDir(fx), "prd", "requests", "r1.md");
export const presenceFile = (fx: Fixture) => join(sessionDir(fx), "presence.json");
export const preferencesFile = (fx: Fixture) => join(fx.root, ".peaks", "preferences.json");
export const settingsFile = (fx: Fixture) => join(fx.root, ".claude", "settings.json");
export const bindingFile = (fx: Fixture) => join(fx.root, ".peaks", "_runtime", "session.json");

export async function write(path: string, text: string | Uint8Array): Promise<void> {
  await Deno.mkdir(dirname(path), { recursive: true });
  if (typeof text === "string") await Deno.writeTextFile(path, text);
  else await Deno.writeFile(path, text);
}

/** Cuts a file in the middle, as a torn write would. */
export async function truncate(path: string): Promise<void> {
  const text = await Deno.readTextFile(path);
  await Deno.writeTextFile(path, text.slice(0, Math.floor(text.length / 2)));
}

/** Rewrites a JSON file through `change`. */
export async function editJson(
  path: string,
  change: (value: Record<string, unknown>) => unknown,
): Promise<void> {
  const value = JSON.parse(await Deno.readTextFile(path));
  await Deno.writeTextFile(path, JSON.stringify(change(value) ?? value, null, 2));
}

export const wrongVersion = (path: string) => editJson(path, (v) => ({ ...v, version: 99 }));
export const extraField = (path: string) =>
  editJson(path, (v) => ({ ...v, surprise: { deep: [1] } }));
export const dropField = (path: string, field: string) =>
  editJson(path, (v) => {
    delete v[field];
    return v;
  });

/** Replaces a file with a symlink to a file outside the project. */
export async function symlinkOut(fx: Fixture, path: string): Promise<void> {
  await Deno.remove(path).catch(() => {});
  await Deno.mkdir(dirname(path), { recursive: true });
  await Deno.symlink(join(fx.outside, "secret.txt"), path);
}

/** A file of `bytes` bytes of text. */
export const big = (bytes: number, char = "x") => char.repeat(bytes);

/** Text edge cases that must be stored or refused cleanly, never crash. */
export const UNICODE = {
  rtl: "\u202Eevil\u202C مرحبا بالعالم",
  combining: "e\u0301\u0301\u0301 Z\u0335\u0321\u0322\u0327a\u0336lgo",
  emoji: "🚀👩‍👩‍👧‍👦🏳️‍🌈 done",
  bidiIsolate: "\u2067abc\u2069",
  zeroWidth: "a\u200B\u200C\u200Db\uFEFF",
};
