/**
 * Role request files (`.peaks/_runtime/<sid>/<role>/requests/<rid>.md`):
 * markdown with a small front matter block that peaks owns. Features that
 * need a request's type or state (dispatch, swarm, gates) read it here.
 *
 *     ---
 *     rid: 001-login
 *     role: prd
 *     type: feature
 *     state: draft
 *     createdAt: 2026-11-29T10:00:00.000Z
 *     updatedAt: 2026-11-29T10:00:00.000Z
 *     ---
 *     # PRD: ...
 *
 * Optional keys, written only when they apply: `verdict` (qa, once
 * `verdict-issued`), `blockedFrom` and `blockedReason` (while `blocked`).
 */
import { z } from "../zod.ts";
import type { Project } from "../project/project.ts";
import { quarantineCommand, refusedAsUnreadable, unreadable } from "../fs/json.ts";
import { FileRefused, readBoundedText } from "../fs/files.ts";

export const REQUEST_ROLES = ["prd", "ui", "rd", "qa", "sc", "txt"] as const;
export type RequestRole = (typeof REQUEST_ROLES)[number];

export const REQUEST_TYPES = ["feature", "bugfix", "refactor", "config", "docs", "chore"] as const;
export type RequestType = (typeof REQUEST_TYPES)[number];

/** How a QA request's `verdict-issued` state is qualified. */
export const QA_VERDICTS = ["pass", "return-to-rd", "blocked"] as const;
export type QaVerdict = (typeof QA_VERDICTS)[number];

export const RequestMetaSchema = z.object({
  rid: z.string(),
  role: z.enum(REQUEST_ROLES),
  type: z.enum(REQUEST_TYPES),
  state: z.string().min(1),
  createdAt: z.string(),
  updatedAt: z.string(),
  verdict: z.enum(QA_VERDICTS).optional(),
  blockedFrom: z.string().min(1).optional(),
  blockedReason: z.string().min(1).optional(),
  /** QA only: how many times the work came back from RD for another test run. */
  reworkRound: z.string().regex(/^[1-9][0-9]?$/).optional(),
});
export type RequestMeta = z.infer<typeof RequestMetaSchema>;

export interface RequestDocument {
  meta: RequestMeta;
  /** Everything after the front matter. */
  body: string;
  /** Line number (1-based) of the first body line in the file. */
  bodyLine: number;
}

const FENCE = "---";

/** Splits front matter (simple `key: value` lines) from the body; undefined when absent. */
export function splitFrontMatter(
  text: string,
): { fields: Record<string, string>; body: string; bodyLine: number } | undefined {
  const lines = text.split(/\r?\n/);
  if (lines[0] !== FENCE) return undefined;
  const end = lines.indexOf(FENCE, 1);
  if (end === -1) return undefined;
  const fields: Record<string, string> = {};
  for (const line of lines.slice(1, end)) {
    const match = /^([A-Za-z][A-Za-z0-9_-]*):\s*(.*)$/.exec(line);
    if (match) fields[match[1]] = match[2].trim();
  }
  return { fields, body: lines.slice(end + 1).join("\n"), bodyLine: end + 2 };
}

const META_KEYS: (keyof RequestMeta)[] = [
  "rid",
  "role",
  "type",
  "state",
  "verdict",
  "blockedFrom",
  "blockedReason",
  "reworkRound",
  "createdAt",
  "updatedAt",
];

export function renderFrontMatter(meta: RequestMeta): string {
  const lines = META_KEYS.filter((key) => meta[key] !== undefined).map((key) =>
    `${key}: ${String(meta[key]).replace(/[\r\n]+/g, " ").trim()}`
  );
  return [FENCE, ...lines, FENCE].join("\n");
}

/** The whole file: front matter, then the body exactly as given (parseRequest's inverse). */
export function renderRequest(meta: RequestMeta, body: string): string {
  return `${renderFrontMatter(meta)}\n${body}`;
}

export function parseRequest(path: string, text: string): RequestDocument {
  const split = splitFrontMatter(text);
  if (!split) throw unreadable(path, { what: "request" }, "no front matter block");
  const parsed = RequestMetaSchema.safeParse(split.fields);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw unreadable(
      path,
      { what: "request" },
      `front matter ${issue.path.join(".")}: ${issue.message}`,
    );
  }
  return { meta: parsed.data, body: split.body, bodyLine: split.bodyLine };
}

/** Reads a request; undefined when the file does not exist. */
export async function readRequest(
  project: Project,
  sid: string,
  role: RequestRole,
  rid: string,
): Promise<RequestDocument | undefined> {
  const path = project.layout.request(sid, role, rid);
  const text = await readRequestText(path);
  return text === undefined ? undefined : parseRequest(path, text);
}

/**
 * A request file's text: bounded, a regular file inside the state tree, else
 * RECORD_UNREADABLE with a repair (a FIFO never blocks the reader); undefined
 * when it does not exist.
 */
export async function readRequestText(path: string): Promise<string | undefined> {
  try {
    return await readBoundedText(path);
  } catch (error) {
    if (!(error instanceof FileRefused)) throw error;
    throw refusedAsUnreadable(error, { what: "request", repair: [quarantineCommand(path)] });
  }
}
