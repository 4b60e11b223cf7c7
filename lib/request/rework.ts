/**
 * Gate of the RD-QA repair loop's backward edges: they open only after QA
 * returned the work to RD, and QA may re-test at most REWORK_LIMIT times.
 */
import { gateError, type PeaksError } from "../infra/errors.ts";
import { readRequest, type RequestMeta } from "./file.ts";
import type { SessionContext } from "../session/session.ts";
import { REWORK_LIMIT } from "./graph.ts";
import { peaksCommand } from "../session/session.ts";

function refused(meta: RequestMeta, to: string, why: string, next: string): PeaksError {
  return gateError(
    "INVALID_TRANSITION",
    `${meta.role} ${meta.rid} cannot go back from ${meta.state} to ${to}: ${why}`,
    { data: { rid: meta.rid, role: meta.role, from: meta.state, to }, nextActions: [next] },
  );
}

/** Checks a rework move and returns the front matter changes it makes. */
export async function checkRework(
  session: SessionContext,
  meta: RequestMeta,
  to: string,
): Promise<Partial<RequestMeta> & { round: number | null }> {
  const qaShow = peaksCommand(session, ["request", "show", meta.rid, "--role", "qa"]);
  if (meta.role === "qa") {
    if (meta.verdict !== "return-to-rd") {
      throw refused(
        meta,
        to,
        `the verdict is ${meta.verdict ?? "missing"}, not return-to-rd.`,
        qaShow,
      );
    }
    const round = Number(meta.reworkRound ?? "0") + 1;
    if (round > REWORK_LIMIT) {
      throw gateError(
        "REWORK_LIMIT_REACHED",
        `QA already re-tested ${meta.rid} ${REWORK_LIMIT} times after returning it to RD; the user decides what happens next.`,
        {
          data: {
            rid: meta.rid,
            limit: REWORK_LIMIT,
            instructions: ["Ask the user whether to continue, re-scope or stop."],
          },
          nextActions: [
            peaksCommand(session, [
              "request",
              "transition",
              meta.rid,
              "--role",
              "qa",
              "--state",
              "blocked",
              "--reason",
              `repair loop limit (${REWORK_LIMIT}) reached`,
            ]),
          ],
        },
      );
    }
    return { verdict: undefined, reworkRound: String(round), round };
  }
  const qa = await readRequest(session.project, session.sessionId, "qa", meta.rid);
  if (!qa || qa.meta.state !== "verdict-issued" || qa.meta.verdict !== "return-to-rd") {
    throw refused(
      meta,
      to,
      "QA has not returned this request to RD (verdict return-to-rd).",
      qaShow,
    );
  }
  return { round: null };
}
