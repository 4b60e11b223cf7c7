import { defineCommand } from "../../infra/command/spec.ts";
import { allowedTargets, BLOCKED, needsConfirm } from "../../request/graph.ts";
import { readHistory } from "../../request/history.ts";
import { lintText } from "../../request/linter.ts";
import {
  loadRequest,
  openRequestSession,
  RID_ARG,
  roleFlag,
  sessionFlag,
} from "../../request/load.ts";
import { checkRequirements } from "../../request/requirements.ts";
import { gateRequirements } from "../../request/prerequisites.ts";
import { nextStep, stepActions, stepData } from "../../workflow/next.ts";
import { requestSubAgents } from "../../record/by_request.ts";

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
    const step = await nextStep(session, meta.rid);
    const next = [];
    for (const to of allowedTargets(meta)) {
      const forward = to !== BLOCKED && meta.state !== BLOCKED;
      const missing = forward
        ? await checkRequirements(
          project.root,
          await gateRequirements(project, sessionId, meta, to),
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
        // Where the workflow stands, for an orchestrator resuming without its context.
        step: { gate: step.phase.gate, role: step.phase.role, ...stepData(step) },
        ...(await requestSubAgents(project, sessionId, meta.rid, ctx.now())),
      },
      // The workflow's next step, not this request's: a sub-agent reading the PRD is not invited
      // to move it, and the orchestrator is pointed at whatever comes next for the request.
      nextActions: stepActions(step),
      human: [
        `${role} ${meta.rid} (${meta.type}): ${meta.state}${
          meta.verdict ? ` verdict=${meta.verdict}` : ""
        }`,
        `file: ${request.shown}`,
        `lint: ${lint.errors.length} error(s), ${lint.warnings.length} warning(s)`,
        ...next.map((n) =>
          `can move to ${n.state}: ${n.ready ? "yes" : "not yet"}${
            n.needsConfirm ? " (with --confirm in assisted/strict mode)" : ""
          }${n.missing.map((m) => `\n  ${m.message}`).join("")}`
        ),
        // The request itself, so `request show` without --json reads as the document it names.
        "",
        body.length > BODY_LIMIT
          ? `${
            body.slice(0, BODY_LIMIT)
          }\n[cut at ${BODY_LIMIT} characters; the whole file: ${request.shown}]`
          : body,
      ].join("\n"),
    };
  },
});
