/** A workspace with requests in it, driven through the real CLI. */
import { assertEquals } from "@std/assert";
import { runPeaks, type RunResult } from "./cli.ts";
import { writeText } from "./temp.ts";
import { makeRecord } from "./subagent.ts";
import type { DispatchRecord } from "../../lib/record/record.ts";

/** A tech doc with the sections RD planning's brief asks for. */
export const TECH_DOC = [
  "# Tech doc",
  "",
  "## Scope",
  "",
  "One endpoint, one table.",
  "",
  "## In-scope files",
  "",
  "- src/api/login.ts",
  "",
  "## Approach",
  "",
  "A handler that checks the password hash.",
  "",
  "## Risks",
  "",
  "Timing attacks: compare in constant time.",
  "",
  "## Verification",
  "",
  "A unit test per branch.",
  "",
].join("\n");

export interface Workspace {
  root: string;
  sid: string;
  env: Record<string, string>;
  /** Runs peaks with --json in the workspace. */
  peaks(...args: string[]): Promise<RunResult>;
  requestPath(role: string, rid: string): string;
  /** Writes a file below the session directory. */
  write(relative: string, text: string): Promise<void>;
}

export async function workspace(
  root: string,
  env: Record<string, string> = {},
): Promise<Workspace> {
  const peaks = (...args: string[]) => runPeaks([...args, "--json"], { cwd: root, env });
  const init = await peaks("workspace", "init");
  assertEquals(init.code, 0, init.stdout + init.stderr);
  const sid = init.json.data.sessionId as string;
  const sessionDir = `${root}/.peaks/_runtime/${sid}`;
  return {
    root,
    sid,
    env,
    peaks,
    requestPath: (role, rid) => `${sessionDir}/${role}/requests/${rid}.md`,
    write: (relative, text) => writeText(`${sessionDir}/${relative}`, text),
  };
}

/** Replaces every `<placeholder>` above the history block with real words. */
export async function fillPlaceholders(path: string): Promise<void> {
  const text = await Deno.readTextFile(path);
  const cut = text.indexOf("<!-- peaks:history:begin -->");
  const head = cut === -1 ? text : text.slice(0, cut);
  const tail = cut === -1 ? "" : text.slice(cut);
  await Deno.writeTextFile(
    path,
    head.replace(/<[A-Za-z][^<>\n]*>/g, "written by the skill") + tail,
  );
}

/** Creates a request (with --apply) and fills it. */
export async function readyRequest(
  ws: Workspace,
  role: string,
  rid: string,
  type = "feature",
): Promise<void> {
  const init = await ws.peaks(
    "request",
    "init",
    "--role",
    role,
    "--id",
    rid,
    "--type",
    type,
    "--apply",
  );
  assertEquals(init.code, 0, init.stdout);
  await fillPlaceholders(ws.requestPath(role, rid));
}

export function transition(
  ws: Workspace,
  role: string,
  rid: string,
  state: string,
  ...extra: string[]
) {
  return ws.peaks("request", "transition", rid, "--role", role, "--state", state, ...extra);
}

/**
 * RD's sub-agent for `rid` finished: the product files it wrote (relative to the project) and its
 * record, finalized done with a return JSON that lists them. Returns the record's path.
 */
export async function rdFinished(
  ws: Workspace,
  rid: string,
  files: string[] = ["src/app.ts"],
  overrides: Partial<DispatchRecord> = {},
): Promise<string> {
  for (const file of files) await writeText(`${ws.root}/${file}`, `// ${rid}\n`);
  const at = new Date().toISOString();
  const record = makeRecord({
    sessionId: ws.sid,
    role: "rd",
    batchId: `b-${rid}`,
    n: 1,
    requestId: rid,
    status: "done",
    createdAt: at,
    overrides: {
      disposed: true,
      disposedAt: at,
      result: {
        role: "rd",
        rid,
        status: "ok",
        artefacts: [`.peaks/_runtime/${ws.sid}/rd/code-review-${rid}.md`, ...files],
        warnings: [],
      },
      ...overrides,
    },
  });
  const path =
    `${ws.root}/.peaks/_sub_agents/${ws.sid}/dispatch-${rid}-rd-${crypto.randomUUID()}.json`;
  await writeText(path, JSON.stringify(record));
  return path;
}
