/**
 * The session's requests as rows, one per request file (rid and role), in rid order and, within a
 * request, in role order. An unreadable file becomes a warning and hides no other row.
 */
import { isNotFound, PeaksError, type Warning } from "../infra/errors.ts";
import { compareText, isValidId } from "../infra/ids.ts";
import { displayPath } from "../workspace/paths.ts";
import type { Project } from "../workspace/project.ts";
import { readRequestText, REQUEST_ROLES, type RequestRole } from "./file.ts";
import { checkRequest } from "./load.ts";

export interface RequestRow {
  rid: string;
  role: RequestRole;
  type: string;
  state: string;
  verdict: string | null;
  blockedFrom: string | null;
  updatedAt: string;
  path: string;
}

async function requestFiles(dir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.isFile || !entry.name.endsWith(".md")) continue;
      if (isValidId(entry.name.slice(0, -3))) names.push(entry.name);
    }
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  return names.sort();
}

export async function listRequests(
  project: Project,
  sessionId: string,
  roles: readonly RequestRole[] = REQUEST_ROLES,
): Promise<{ rows: RequestRow[]; warnings: Warning[] }> {
  const rows: RequestRow[] = [];
  const warnings: Warning[] = [];
  for (const role of roles) {
    const dir = project.layout.requestsDir(sessionId, role);
    for (const name of await requestFiles(dir)) {
      const rid = name.slice(0, -3);
      const path = project.layout.request(sessionId, role, rid);
      try {
        const text = await readRequestText(path);
        if (text === undefined) continue;
        const { meta } = await checkRequest(path, text, role, rid);
        rows.push({
          rid,
          role,
          type: meta.type,
          state: meta.state,
          verdict: meta.verdict ?? null,
          blockedFrom: meta.blockedFrom ?? null,
          updatedAt: meta.updatedAt,
          path: displayPath(project.root, path),
        });
      } catch (error) {
        if (!(error instanceof PeaksError)) throw error;
        warnings.push({ code: error.code, message: error.message, path: error.data.path });
      }
    }
  }
  const order = (role: RequestRole) => REQUEST_ROLES.indexOf(role);
  rows.sort((a, b) => compareText(a.rid, b.rid) || order(a.role) - order(b.role));
  return { rows, warnings };
}
