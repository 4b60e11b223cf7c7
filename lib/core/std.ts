/**
 * Typed facade over the deno-std npm mirror, which ships without type
 * declarations. Everything peaks uses from std goes through here so `any`
 * stops at this file.
 *
 * Path functions come from the posix/windows modules directly: the
 * platform-switching `@std/path/<fn>` entry points probe `globalThis.process`,
 * which makes Deno load its Node compatibility layer (about 12 ms on every call).
 */
import { parseArgs as rawParseArgs } from "@std/cli/parse-args";
import { basename as posixBasename } from "@std/path/posix/basename";
import { dirname as posixDirname } from "@std/path/posix/dirname";
import { fromFileUrl as posixFromFileUrl } from "@std/path/posix/from-file-url";
import { isAbsolute as posixIsAbsolute } from "@std/path/posix/is-absolute";
import { join as posixJoin } from "@std/path/posix/join";
import { normalize as posixNormalize } from "@std/path/posix/normalize";
import { relative as posixRelative } from "@std/path/posix/relative";
import { resolve as posixResolve } from "@std/path/posix/resolve";
import { basename as winBasename } from "@std/path/windows/basename";
import { dirname as winDirname } from "@std/path/windows/dirname";
import { fromFileUrl as winFromFileUrl } from "@std/path/windows/from-file-url";
import { isAbsolute as winIsAbsolute } from "@std/path/windows/is-absolute";
import { join as winJoin } from "@std/path/windows/join";
import { normalize as winNormalize } from "@std/path/windows/normalize";
import { relative as winRelative } from "@std/path/windows/relative";
import { resolve as winResolve } from "@std/path/windows/resolve";

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
