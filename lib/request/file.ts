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
import { checkState, loadSchemas, stateSchema } from "../infra/shape/lazy.ts";
import { REQUEST_META_SHAPE } from "../state/shapes.ts";
import type { RequestMeta } from "../state/request.ts";
import type { RequestRole } from "../state/request.ts";
import type { Project } from "../workspace/project.ts";
import { quarantineCommand, refusedAsUnreadable, unreadable } from "../infra/fs/json.ts";
import { FileRefused, readBoundedText } from "../infra/fs/files.ts";

export {
  QA_VERDICTS,
  type QaVerdict,
  REQUEST_ROLES,
  REQUEST_TYPES,
  type RequestRole,
  type RequestType,
} from "../state/request.ts";
export type { RequestMeta } from "../state/request.ts";

/** A request's front matter, checked by its shape (zod only for what the shape doubts). */
const RequestMetaFields = stateSchema<RequestMeta>(
  REQUEST_META_SHAPE,
  () =>
    import("../state/request.ts").then((m) => loadSchemas(m.requestSchemas)).then((s) =>
      s.RequestMetaSchema
    ),
);

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

export async function parseRequest(path: string, text: string): Promise<RequestDocument> {
  const split = splitFrontMatter(text);
  if (!split) throw unreadable(path, { what: "request" }, "no front matter block");
  const parsed = await checkState(RequestMetaFields, split.fields);
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
  return text === undefined ? undefined : await parseRequest(path, text);
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
