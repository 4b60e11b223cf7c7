import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { type Project, resolveProject } from "../../workspace/project.ts";
import { assertId } from "../../infra/ids.ts";
import { usageError, type Warning } from "../../infra/errors.ts";
import { anchorWorkspace } from "../../session/anchor.ts";
import { readSessionMeta, resolveSession, touchSession } from "../../session/session.ts";
import { readPresence, setPresence } from "../../presence/presence.ts";
import { PRESENCE_MODES, type PresenceMode } from "../../state/presence.ts";
import { callerIdFromEnv } from "../../presence/caller.ts";
import { readPreferences } from "../../preferences/preferences.ts";
import { detect1x } from "../../upgrade/detect.ts";
import { listRequests, type RequestRow } from "../../request/list.ts";
import { isClosed } from "../../request/close.ts";
import { peaksLine } from "../../infra/shell.ts";
import type { Ctx } from "../../infra/command/ctx.ts";

const SKILL = /^[a-z0-9][a-z0-9:-]{0,63}$/;

/** An open request as startup needs it: where it stands, by its furthest role. */
interface OpenRequest {
  rid: string;
  type: string;
  role: string;
  state: string;
}

/** The session's requests not closed yet (`request close` records the user's decision). */
async function openRequests(
  project: Project,
  sid: string,
): Promise<{ open: OpenRequest[]; warnings: Warning[] }> {
  const { rows, warnings } = await listRequests(project, sid);
  const furthest = new Map<string, RequestRow>();
  // Rows come in role order within a request: the last one is the furthest role.
  for (const row of rows) furthest.set(row.rid, row);
  const open: OpenRequest[] = [];
  for (const [rid, row] of furthest) {
    if (await isClosed(project, sid, rid)) continue;
    open.push({ rid, type: row.type, role: row.role, state: row.state });
  }
  return { open, warnings };
}

/** Claims presence for the skill: gate `startup` unless the skill already holds one, the saved mode. */
async function claimPresence(
  ctx: Ctx,
  project: Project,
  sid: string,
  skill: string,
  mode: PresenceMode | undefined,
) {
  const callerId = await callerIdFromEnv(ctx.env);
  if (callerId) assertId(callerId, "caller id");
  const { presence: current } = await readPresence(project, sid, callerId).catch(() => ({
    presence: undefined,
  }));
  const resumed = current?.skill === skill && current.gate !== null;
  return await setPresence(project, sid, callerId, {
    skill,
    ...(mode ? { mode } : {}),
    ...(resumed ? {} : { gate: "startup" }),
  }, ctx.now());
}

export default defineCommand({
  name: "session start",
  description:
    "Starts (or resumes) a skill's session in one call: anchors the workspace as `workspace init` does " +
    "(the session is --session-id, else PEAKS_SESSION_ID, which must exist, else the workspace's binding), " +
    "claims presence for the skill (gate startup, the saved swarmMode), and reports what startup decides on: " +
    "whether the session has a title (data.hasTitle), the requests still open (data.requests: rid, type, and the " +
    "furthest role and its state; closed ones are left out), the 1.x check (data.upgrade1x, as " +
    "`upgrade --detect-1x` decides it) and the saved mode (data.swarmMode, null when not chosen yet).",
  flags: {
    skill: flag.string("The skill that starts (default peaks-code).", {
      placeholder: "<skill>",
      max: 64,
      default: "peaks-code",
    }),
    "session-id": flag.string("Bind this session instead of reusing or creating one.", {
      placeholder: "<sid>",
      max: 128,
    }),
  },
  examples: ["peaks session start --json", "peaks session start --skill peaks-code --json"],
  async run({ flags }, ctx) {
    const skill = flags.skill ?? "peaks-code";
    if (!SKILL.test(skill)) {
      throw usageError(
        "INVALID_FLAG_VALUE",
        "--skill must be 1-64 lowercase letters, digits, '-' or ':'.",
        { data: { flag: "skill" } },
      );
    }
    const wanted = flags["session-id"] === undefined
      ? undefined
      : assertId(flags["session-id"], "--session-id");
    const project = await resolveProject(ctx);
    const anchored = await anchorWorkspace(ctx, project, wanted);
    // PEAKS_SESSION_ID names the session every later command works in: start that one (it must
    // exist), and leave the workspace's binding as it is.
    const fromEnv = wanted === undefined && Boolean(ctx.env.get("PEAKS_SESSION_ID"));
    const sid = fromEnv ? (await resolveSession(ctx, project)).sessionId : anchored.sessionId;
    const [preferences, meta, requests, oneX] = await Promise.all([
      readPreferences(project),
      readSessionMeta(project, sid),
      openRequests(project, sid),
      detect1x(ctx, project, wanted),
    ]);
    const saved = preferences.swarmMode;
    const mode = (PRESENCE_MODES as readonly string[]).includes(saved ?? "")
      ? saved as PresenceMode
      : undefined;
    const presence = await claimPresence(ctx, project, sid, skill, mode);
    await touchSession(project, sid, ctx.now());
    const autoRun = oneX.isOneX && oneX.decision === "auto-run";
    return {
      data: {
        projectRoot: project.root,
        sessionId: sid,
        session: fromEnv ? "env" : anchored.how,
        hasTitle: Boolean(meta?.title),
        requests: requests.open,
        upgrade1x: {
          isOneX: oneX.isOneX,
          decision: oneX.decision,
          decisionReason: oneX.decisionReason,
          ...(oneX.signals.length ? { signals: oneX.signals.map((s) => s.message) } : {}),
        },
        swarmMode: mode ?? null,
        presence: { skill: presence.skill, mode: presence.mode, gate: presence.gate },
      },
      warnings: requests.warnings,
      nextActions: autoRun ? [peaksLine(project.root, ["upgrade", "--to", "2.0", "--auto"])] : [],
      human: [
        `session ${sid} (${fromEnv ? "PEAKS_SESSION_ID" : anchored.how}) at ${project.root}`,
        `skill ${presence.skill}, mode ${presence.mode ?? "not chosen"}, gate ${
          presence.gate ?? "-"
        }`,
        requests.open.length
          ? `open requests: ${
            requests.open.map((r) => `${r.rid} (${r.role} ${r.state})`).join(", ")
          }`
          : "no open request",
        `1.x: ${oneX.decision} (${oneX.decisionReason})`,
      ].join("\n"),
    };
  },
});
