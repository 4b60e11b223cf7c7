import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { gateError, PeaksError } from "../../infra/errors.ts";
import { assertId, isoTime } from "../../infra/ids.ts";
import { displayPath } from "../../workspace/paths.ts";
import { peaksCommand } from "../../session/session.ts";
import { readRequest } from "../../request/file.ts";
import { openRequestSession, RID_ARG, sessionFlag } from "../../request/load.ts";
import type { Ctx } from "../../infra/command/ctx.ts";
import type { SessionContext } from "../../session/session.ts";
import {
  changeSummary,
  CLOSE_DECISIONS,
  commitMessage,
  isClosed,
  readClosure,
  writeClosure,
} from "../../request/close.ts";

export default defineCommand({
  name: "request close",
  description:
    "The last step of a request, after txt finalized. Without --decision it shows the change (files outside " +
    ".peaks/ and a diff summary, bounded), proposes a commit message from the PRD title and waits for the user. " +
    "--decision committed (the user or you committed; the tree must be clean) or --decision uncommitted " +
    "(explicitly left as a working-tree change) closes the request. --decision abandoned closes a request the " +
    "user dropped, in any state (its files are left as they are): it no longer shows as open in session start " +
    "and has no next step.",
  args: [RID_ARG],
  flags: {
    decision: flag.enum(
      CLOSE_DECISIONS,
      "The user's answer: committed, left uncommitted, or abandoned (dropped unfinished).",
    ),
    "session-id": sessionFlag(),
  },
  examples: [
    "peaks request close 001-login --json",
    "peaks request close 001-login --decision committed --json",
    "peaks request close 002-search --decision abandoned --json",
  ],
  async run({ flags, args }, ctx) {
    const session = await openRequestSession(ctx, flags["session-id"]);
    const { project, sessionId } = session;
    const rid = args.rid!;
    if (flags.decision === "abandoned") return await abandon(ctx, session, rid);
    const txt = await readRequest(project, sessionId, "txt", rid);
    if (txt?.meta.state !== "finalized") {
      throw gateError(
        "REQUEST_NOT_FINISHED",
        `Request ${rid} is not finished: txt is ${
          txt?.meta.state ?? "not created"
        }, close needs txt finalized.`,
        { data: { rid, txt: txt?.meta.state ?? null } },
      );
    }
    const close = (decision: string) =>
      peaksCommand(session, ["request", "close", rid, "--decision", decision, "--json"]);
    const change = await changeSummary(project.root);
    const base = { projectRoot: project.root, sessionId, rid, ...change };
    if (await isClosed(project, sessionId, rid)) {
      return { data: { ...base, closed: true }, human: `request ${rid}: closed` };
    }
    if (!flags.decision) {
      const prd = await readRequest(project, sessionId, "prd", rid).catch(() => undefined);
      const message = commitMessage(txt.meta.type, rid, prd?.body);
      return {
        data: {
          ...base,
          closed: false,
          commitMessage: message,
          waitingFor: "the user: commit the change, or leave it uncommitted",
          options: [
            { decision: "committed", command: close("committed") },
            { decision: "uncommitted", command: close("uncommitted") },
          ],
        },
        instructions: [
          `Show the user the ${change.total} changed file(s) and the diff summary, propose the commit message ` +
          `"${message}", and ask: commit it, or leave it uncommitted. If they want the commit, run ` +
          "git add and git commit with their message, then options[0].command; otherwise options[1].command. " +
          "data.peaksFiles are peaks' own files (skills, settings, CLAUDE.md/AGENTS.md): ask whether they go in too.",
        ],
        human: [
          `request ${rid}: ${change.total} changed file(s)`,
          ...change.files,
          change.diffStat ?? "",
          `proposed: ${message}`,
        ].join("\n"),
      };
    }
    if (flags.decision === "committed" && change.total > 0) {
      throw gateError(
        "CHANGES_UNCOMMITTED",
        `${change.total} file(s) outside .peaks/ are still changed: commit them first, or close with --decision uncommitted.`,
        { data: base, nextActions: [] },
      );
    }
    const path = await writeClosure(project, sessionId, rid, {
      decision: flags.decision,
      closedAt: isoTime(ctx.now()),
      uncommittedFiles: change.total,
    });
    return {
      data: {
        ...base,
        closed: true,
        decision: flags.decision,
        path: displayPath(project.root, path),
      },
      human: `request ${rid}: closed (${flags.decision})`,
    };
  },
});

/** The user dropped the request: closed as it stands, whatever its state; nothing else changes. */
async function abandon(ctx: Ctx, session: SessionContext, rid: string) {
  const { project, sessionId } = session;
  // The request must be there: its PRD, or its RD request for one made without a PRD.
  const found = await Promise.all(
    (["prd", "rd"] as const).map((role) =>
      readRequest(project, sessionId, role, assertId(rid, "<rid>")).catch(() => undefined)
    ),
  );
  if (!found.some(Boolean)) {
    throw new PeaksError(
      "REQUEST_NOT_FOUND",
      `There is no request ${rid} in session ${sessionId} to abandon.`,
      {
        data: { rid, sessionId },
        nextActions: [peaksCommand(session, ["request", "list", "--json"])],
      },
    );
  }
  const closure = await readClosure(project, sessionId, rid);
  const change = await changeSummary(project.root);
  const base = { projectRoot: project.root, sessionId, rid, ...change };
  if (closure) {
    return {
      data: { ...base, closed: true, decision: closure.decision },
      human: `request ${rid}: already closed (${closure.decision})`,
    };
  }
  const path = await writeClosure(project, sessionId, rid, {
    decision: "abandoned",
    closedAt: isoTime(ctx.now()),
    uncommittedFiles: change.total,
  });
  return {
    data: { ...base, closed: true, decision: "abandoned", path: displayPath(project.root, path) },
    human: `request ${rid}: abandoned (closed; ${change.total} changed file(s) left as they are)`,
  };
}
