/**
 * Typed facade over the deno-std npm mirror, which ships without type
 * declarations. Everything peaks uses from std goes through here so `any`
 * stops at this file.
 *
 * Path functions come from the posix/windows modules directly: the
 * platform-switching `@std/path/<fn>` entry points probe `globalThis.process`,
 * which makes Deno load its Node compatibility layer (about 12 ms on every call).
 * They and parseArgs are loaded from vendor/std.js, one local module that
 * `deno task vendor` bundles from the `@std/*` names of deno.json's import
 * map: resolving the 29 npm modules one by one cost every call about 8 ms.
 */
import {
  parseArgs as rawParseArgs,
  posixBasename,
  posixDirname,
  posixFromFileUrl,
  posixIsAbsolute,
  posixJoin,
  posixNormalize,
  posixRelative,
  posixResolve,
  winBasename,
  winDirname,
  winFromFileUrl,
  winIsAbsolute,
  winJoin,
  winNormalize,
  winRelative,
  winResolve,
} from "./vendor/std.js";

export interface ParseArgsOptions {
  string?: string[];
  boolean?: string[];
  collect?: string[];
  alias?: Record<string, string>;
  unknown?: (arg: string, key?: string, value?: unknown) => boolean;
  "--"?: boolean;
}

export interface ParsedArgs {
  _: string[];
  [key: string]: unknown;
}

export const parseArgs = rawParseArgs as (args: string[], options: ParseArgsOptions) => ParsedArgs;

const windows = Deno.build.os === "windows";

export const SEPARATOR = windows ? "\\" : "/";
export const join = (windows ? winJoin : posixJoin) as (...paths: string[]) => string;
export const resolve = (windows ? winResolve : posixResolve) as (...paths: string[]) => string;
export const relative = (windows ? winRelative : posixRelative) as (
  from: string,
  to: string,
) => string;
export const dirname = (windows ? winDirname : posixDirname) as (path: string) => string;
export const basename = (windows ? winBasename : posixBasename) as (
  path: string,
  suffix?: string,
) => string;
export const isAbsolute = (windows ? winIsAbsolute : posixIsAbsolute) as (path: string) => boolean;
export const normalize = (windows ? winNormalize : posixNormalize) as (path: string) => string;
export const fromFileUrl = (windows ? winFromFileUrl : posixFromFileUrl) as (
  url: string | URL,
) => string;
