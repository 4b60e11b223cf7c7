import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { readBatchMembers } from "../../batch/members.ts";
import { openSession } from "../../session/session.ts";
import { batchNotFound, chooseBatchOf, chooseLabel, statusData } from "../../batch/view.ts";

export default defineCommand({
  name: "sub-agent status",
  description:
    "Prints one status line for a batch (default: the most recent one), at most 120 characters: " +
    "`[peaks-code] swarm 2/3 running | rd-planning 45% (12s ago) | qa-test-cases 30% (5s ago) | ui 100% done`. " +
    "Silent members are marked `⚠ stale` (no beat for 5 minutes) or `⚠ never-started` (no beat 60 s after " +
    "dispatch); a finished batch reads `swarm 3/3 done`, one whose members have not sent a beat yet `not started`, " +
    "and a batch of one `sub-agent running|done|failed`. Without --batch, when the session has several batches, the human output names the one shown. Isolated slices also show their worktree " +
    "(data.members[].worktree, and one line each under the status line). Reading never changes a record.",
  flags: {
    "session-id": flag.string("Session to use instead of the active one.", {
      placeholder: "<sid>",
      max: 128,
    }),
    batch: flag.string("The batch to show.", { placeholder: "<id>", max: 128 }),
    label: flag.string("Label in brackets (default: the active skill).", {
      placeholder: "<name>",
      max: 40,
    }),
  },
  examples: ["peaks sub-agent status", "peaks sub-agent status --batch <id> --json"],
  async run({ flags }, ctx) {
    const { project, sessionId } = await openSession(ctx, flags["session-id"]);
    const [{ batchId, batches }, label] = await Promise.all([
      chooseBatchOf(project, sessionId, flags.batch),
      chooseLabel(ctx, project, sessionId, flags.label),
    ]);
    if (batchId === undefined) {
      const line = `[${label}] no sub-agents dispatched`;
      return {
        data: { projectRoot: project.root, sessionId, batchId: null, line, members: [] },
        human: line,
      };
    }
    const members = await readBatchMembers(project, sessionId, batchId, ctx.now());
    if (members.length === 0) throw batchNotFound(project, sessionId, batchId);
    const view = statusData(project, label, members);
    // Isolated slices: one line each under the status line, with where their worktree stands.
    const slices = view.members.filter((m) => m.worktree).map((m) =>
      `  ${m.role}: worktree ${m.worktree!.state}${m.worktree!.path ? ` ${m.worktree!.path}` : ""}`
    );
    // Without --batch the most recent of several is shown: say so, so nobody mistakes it for the only one.
    const which = batches > 1
      ? [`  batch ${batchId}, the most recent of ${batches} (--batch <id> shows another)`]
      : [];
    return {
      data: { projectRoot: project.root, sessionId, batchId, ...view },
      human: [view.line, ...slices, ...which].join("\n"),
    };
  },
});
