import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { assertId } from "../../infra/ids.ts";
import { openSession, peaksCommand } from "../../session/session.ts";
import { rebuildBatch } from "../../batch/rebuild.ts";
import type { Warning } from "../../infra/errors.ts";

export default defineCommand({
  name: "sub-agent repair",
  description:
    "Rebuilds a batch file from the records that carry its batch id: the repair offered when a batch file " +
    "is unreadable (RECORD_UNREADABLE). The broken file's bytes are kept beside it " +
    "(batch-<id>.json.corrupt-<time>), numbering continues after the highest number ever handed out, " +
    "and records that share a number get fresh ones. Holds the batch lock, so no dispatch joins meanwhile; " +
    "safe to run on a healthy batch (it changes nothing a reader sees).",
  flags: {
    batch: flag.string("The batch to rebuild.", { placeholder: "<id>", required: true, max: 128 }),
    "session-id": flag.string("Session to use instead of the active one.", {
      placeholder: "<sid>",
      max: 128,
    }),
  },
  examples: ["peaks sub-agent repair --batch <id> --json"],
  async run({ flags }, ctx) {
    const batchId = assertId(flags.batch, "--batch");
    const session = await openSession(ctx, flags["session-id"]);
    const { project, sessionId } = session;
    const rebuilt = await rebuildBatch(project, sessionId, batchId, ctx.now());
    const warnings: Warning[] = rebuilt.unreadable.map((u) => ({
      code: "RECORD_UNREADABLE",
      message:
        `${u.recordPath} is unreadable (${u.reason}); if it belongs to this batch, repair it (${u.repair}) and run this again.`,
      path: u.recordPath,
    }));
    const { batch } = rebuilt;
    return {
      data: {
        projectRoot: project.root,
        sessionId,
        batchId,
        count: batch.count,
        members: batch.members.length,
        keptAside: rebuilt.keptAside,
        renumbered: rebuilt.renumbered,
        unreadable: rebuilt.unreadable,
      },
      warnings,
      nextActions: [
        ...rebuilt.unreadable.map((u) => u.repair).filter((a): a is string => a !== null),
        peaksCommand(session, ["sub-agent", "status", "--batch", batchId]),
      ],
      human: `batch ${batchId}: ${batch.members.length} member(s), numbered up to ${batch.count}${
        rebuilt.keptAside ? `; the broken file was kept at ${rebuilt.keptAside}` : ""
      }${rebuilt.renumbered.length ? `; ${rebuilt.renumbered.length} renumbered` : ""}`,
    };
  },
});
