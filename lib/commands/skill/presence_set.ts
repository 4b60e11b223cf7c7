import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { openSession, touchSession } from "../../session/session.ts";
import { PRESENCE_MODES, setPresence } from "../../presence/presence.ts";
import { callerIdFromEnv } from "../../presence/caller.ts";
import { displayPath } from "../../workspace/paths.ts";
import { assertId, printable } from "../../infra/ids.ts";
import { usageError } from "../../infra/errors.ts";
import { NEXT_MAX } from "../../state/presence.ts";

const NAME = /^[a-z0-9][a-z0-9:-]{0,63}$/;

function checkName(value: string | undefined, label: string): string | undefined {
  if (value === undefined) return undefined;
  if (!NAME.test(value)) {
    throw usageError(
      "INVALID_FLAG_VALUE",
      `${label} must be 1-64 lowercase letters, digits, '-' or ':' (got ${
        JSON.stringify(printable(value))
      }).`,
      { data: { flag: label } },
    );
  }
  return value;
}

/** A next step is one line of text; `-` clears it. */
function nextStep(value: string | undefined): string | null {
  const line = (value ?? "").replace(/\s+/g, " ").trim();
  return line === "" || line === "-" ? null : line;
}

export default defineCommand({
  name: "skill presence:set",
  description:
    "Records which skill is active, in which mode, at which gate and in which role. Flags not given keep their " +
    "current value. Presence is kept per caller window when PEAKS_CALLER_ID or the IDE's session variable " +
    "(CLAUDE_CODE_SESSION_ID) is set, else once per session. --next records the next step the header's Next: " +
    "segment shows (`--next -` clears it). Dispatched sub-agents never call this.",
  args: [{ name: "skill", description: "The skill name, e.g. peaks-code.", required: true }],
  flags: {
    mode: flag.enum(PRESENCE_MODES, "Workflow mode."),
    gate: flag.string("Current gate, e.g. startup, swarm-fan-out.", {
      placeholder: "<gate>",
      max: 64,
    }),
    role: flag.string("Current role, e.g. prd, rd, qa.", { placeholder: "<role>", max: 64 }),
    next: flag.string("Your next step in a few words, shown as the header's Next: segment.", {
      placeholder: "<action>",
      max: NEXT_MAX,
    }),
    "session-id": flag.string("Session to use instead of the active one.", {
      placeholder: "<sid>",
      max: 128,
    }),
  },
  examples: [
    "peaks skill presence:set peaks-code --gate startup --json",
    "peaks skill presence:set peaks-code --mode full-auto --gate swarm-fan-out --role rd --json",
    'peaks skill presence:set peaks-code --gate prd --next "confirm the PRD with the user" --json',
  ],
  async run({ flags, args, given }, ctx) {
    const skill = checkName(args.skill, "<skill>")!;
    const gate = checkName(flags.gate, "--gate");
    const role = checkName(flags.role, "--role");
    const { project, sessionId } = await openSession(ctx, flags["session-id"]);
    const callerId = await callerIdFromEnv(ctx.env);
    if (callerId) assertId(callerId, "caller id");
    const path = project.layout.presence(sessionId, callerId);
    const presence = await setPresence(project, sessionId, callerId, {
      skill,
      ...(given.has("mode") ? { mode: flags.mode ?? null } : {}),
      ...(given.has("gate") ? { gate: gate ?? null } : {}),
      ...(given.has("role") ? { role: role ?? null } : {}),
      ...(given.has("next") ? { next: nextStep(flags.next) } : {}),
    }, ctx.now());
    await touchSession(project, sessionId, ctx.now());
    return {
      data: {
        projectRoot: project.root,
        sessionId,
        callerId: callerId ?? null,
        path: displayPath(project.root, path),
        presence,
      },
      human: `presence: ${presence.skill} mode=${presence.mode ?? "-"} gate=${
        presence.gate ?? "-"
      } role=${presence.role ?? "-"}`,
    };
  },
});
