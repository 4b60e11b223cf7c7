/** The global flags, pulled out of argv before the command is known. Loads nothing heavy. */
import { usageError } from "../infra/errors.ts";

/** Flags every command accepts; the kernel handles them. */
export const GLOBAL_FLAGS = {
  project: {
    kind: "string",
    placeholder: "<path>",
    description:
      "Project root (default: nearest workspace, else git top level, else cwd); must exist.",
  },
  json: { kind: "boolean", description: "Print one JSON envelope on stdout." },
  pretty: { kind: "boolean", description: "Indent the JSON envelope." },
  help: { kind: "boolean", description: "Show help for this command." },
} as const;

export type GlobalFlagName = keyof typeof GLOBAL_FLAGS;

export interface Split {
  project?: string;
  json: boolean;
  pretty: boolean;
  help: boolean;
  version: boolean;
  /** Everything that is not a global flag, in order. */
  rest: string[];
}

/**
 * Pulls the global flags out of argv wherever they appear, so `peaks --json
 * session list` and `peaks session list --json` mean the same. Values of a
 * command's own string flags are skipped by the command parser, not here, so
 * this only treats `--project` specially (it always takes a value).
 */
export function splitGlobals(argv: string[]): Split {
  const out: Split = { json: false, pretty: false, help: false, version: false, rest: [] };
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i];
    if (token === "--") {
      out.rest.push(...argv.slice(i));
      break;
    }
    const [name, inline] = splitToken(token);
    if (name === "json" || name === "pretty" || name === "help" || name === "version") {
      if (inline !== undefined && inline !== "true" && inline !== "false") {
        throw usageError("INVALID_FLAG_VALUE", `--${name} is a switch: use --${name} alone.`, {
          data: { flag: name, allowed: ["true", "false"] },
        });
      }
      out[name] = inline !== "false";
      continue;
    }
    if (token === "-h") {
      out.help = true;
      continue;
    }
    if (name === "project") {
      const value = inline ?? argv[++i];
      if (value === undefined || value === "") {
        throw usageError("MISSING_FLAG_VALUE", "--project needs a directory path.", {
          data: { flag: "project" },
        });
      }
      if (out.project !== undefined) {
        throw usageError("DUPLICATE_FLAG", "--project was given more than once.", {
          data: { flag: "project" },
        });
      }
      out.project = value;
      continue;
    }
    out.rest.push(token);
  }
  if (out.pretty) out.json = true;
  return out;
}

/** `--name=value` → ["name", "value"]; `--name` → ["name", undefined]; others → [undefined]. */
export function splitToken(token: string): [string | undefined, string | undefined] {
  if (!token.startsWith("--") || token === "--") return [undefined, undefined];
  const eq = token.indexOf("=");
  return eq === -1 ? [token.slice(2), undefined] : [token.slice(2, eq), token.slice(eq + 1)];
}
