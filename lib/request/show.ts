import { defineCommand } from "../core/command/spec.ts";
import { allowedTargets, BLOCKED, needsConfirm } from "./_graph.ts";
import { readHistory } from "../core/request/history.ts";
import { lintText } from "../core/request/lint.ts";
import { loadRequest, openRequestSession, RID_ARG, roleFlag, sessionFlag } from "./_load.ts";
import { checkRequirements } from "../core/request/requirements.ts";
import { requirementsFor } from "./_prerequisites.ts";
import { peaksCommand } from "../core/session/session.ts";

/** Bodies beyond this are cut in the envelope; the file itself has everything. */
const BODY_LIMIT = 16_000;

export default defineCommand({
  name: "request show",
  description:
    "Shows a request: its type, state, verdict, body (cut at 16,000 characters), lint counts, state history, " +
    "and for each state it may move to next, what that transition still needs.",
  args: [RID_ARG],
  flags: { role: roleFlag(), "session-id": sessionFlag() },
  examples: ["peaks request show 001-login --role prd --json"],
  async run({ flags, args }, ctx) {
    const session = await openRequestSession(ctx, flags["session-id"]);
    const { project, sessionId } = session;
    const role = flags.role;
    const request = await loadRequest(session, role, args.rid!);
    const { meta, body } = request.doc;
    const lint = lintText(request.text);
    const next = [];
    for (const to of allowedTargets(meta)) {
      const forward = to !== BLOCKED && meta.state !== BLOCKED;
      const missing = forward
        ? await checkRequirements(
          project.root,
          requirementsFor(project.layout, sessionId, role, meta.type, meta.rid, to),
        )
        : [];
      next.push({
        state: to,
        lintGate: forward,
        ready: !forward || (lint.errors.length === 0 && missing.length === 0),
        needsConfirm: forward && needsConfirm(role, to),
        missing,
      });
    }
    const forward = meta.state === BLOCKED ? undefined : next.find((n) => n.state !== BLOCKED);
    return {
      data: {
        projectRoot: project.root,
        sessionId,
        rid: meta.rid,
        role,
        type: meta.type,
        state: meta.state,
        verdict: meta.verdict ?? null,
        blockedFrom: meta.blockedFrom ?? null,
        blockedReason: meta.blockedReason ?? null,
        createdAt: meta.createdAt,
        updatedAt: meta.updatedAt,
        path: request.shown,
        lint: { errorCount: lint.errors.length, warningCount: lint.warnings.length },
        next,
        history: readHistory(body),
        body: body.length > BODY_LIMIT ? body.slice(0, BODY_LIMIT) : body,
        bodyTruncated: body.length > BODY_LIMIT,
      },
      nextActions: lint.errors.length
        ? [peaksCommand(session, ["request", "lint", meta.rid, "--role", role])]
        : forward?.ready
        ? [
          peaksCommand(session, [
            "request",
            "transition",
            meta.rid,
            "--role",
            role,
            "--state",
            forward.state,
          ]),
        ]
        : [],
      human: [
        `${role} ${meta.rid} (${meta.type}): ${meta.state}${
          meta.verdict ? ` verdict=${meta.verdict}` : ""
        }`,
        `file: ${request.shown}`,
        `lint: ${lint.errors.length} error(s), ${lint.warnings.length} warning(s)`,
        ...next.map((n) =>
          `next ${n.state}: ${n.ready ? "ready" : "not ready"}${
            n.needsConfirm ? " (needs --confirm in assisted/strict)" : ""
          }${n.missing.map((m) => `\n  ${m.message}`).join("")}`
        ),
      ].join("\n"),
    };
  },
});
