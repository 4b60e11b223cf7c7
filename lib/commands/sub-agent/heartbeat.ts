import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { PeaksError, type Warning } from "../../infra/errors.ts";
import { displayPath } from "../../workspace/paths.ts";
import { resolveProject } from "../../workspace/project.ts";
import { isTerminal, MAX_HEARTBEATS, STAGES } from "../../state/record.ts";
import { applyBeat, BEAT_STATUSES } from "../../record/heartbeat.ts";
import { resolveRecordFlag } from "../../record/record_flag.ts";
import { updateExistingRecord } from "../../record/record.ts";
import { peaksLine } from "../../infra/shell.ts";

export default defineCommand({
  name: "sub-agent heartbeat",
  description:
    "A dispatched sub-agent reports progress: appends {at, status, progress, note, stage} to its record " +
    `(the newest ${MAX_HEARTBEATS} are kept; truncated:true once older ones were dropped) and sets lastBeatAt. ` +
    "--status done or failed ends the record. A beat on a stale or never-started record revives it " +
    "(revivedAt); a beat on a finished record is refused with RECORD_TERMINAL and changes nothing.",
  flags: {
    record: flag.string("The dispatch record (data.dispatchRecordPath).", {
      placeholder: "<path>",
      required: true,
      max: 4096,
    }),
    status: flag.enum(BEAT_STATUSES, "What the sub-agent is doing.", { required: true }),
    progress: flag.int("Percent done.", { min: 0, max: 100, required: true }),
    note: flag.string("One line on the current step.", { placeholder: "<text>", max: 200 }),
    stage: flag.enum(STAGES, "The current stage."),
  },
  examples: [
    'peaks sub-agent heartbeat --record .peaks/_sub_agents/<sid>/dispatch-<…>.json --status running --progress 40 --stage analyzing --note "reading the API layer" --json',
    "peaks sub-agent heartbeat --record .peaks/_sub_agents/<sid>/dispatch-<…>.json --status done --progress 100 --json",
  ],
  exitNotes: ["1  RECORD_TERMINAL: the record already finished; nothing was changed"],
  async run({ flags }, ctx) {
    const project = await resolveProject(ctx);
    const target = await resolveRecordFlag(ctx, project, flags.record);
    const shown = displayPath(project.root, target.path);
    const outcome = await updateExistingRecord(
      project,
      target.path,
      (record) => {
        // Taken under the lock, so beats are stored in the order of their timestamps.
        const now = ctx.now();
        if (isTerminal(record.status)) {
          throw new PeaksError(
            "RECORD_TERMINAL",
            `The record ${shown} is already ${record.status}; a heartbeat cannot change it.`,
            {
              data: { recordPath: shown, status: record.status },
              nextActions: [
                peaksLine(project.root, ["sub-agent", "list"]),
              ],
            },
          );
        }
        const { next, revivedFrom } = applyBeat(record, {
          status: flags.status,
          progress: flags.progress,
          note: flags.note ?? null,
          stage: flags.stage ?? null,
        }, now);
        return { value: next, result: { next, revivedFrom } };
      },
      { pure: true },
    );
    const { next, revivedFrom } = outcome;
    const revived = revivedFrom !== null;
    const warnings: Warning[] = revived
      ? [{
        code: "RECORD_REVIVED",
        message: `The record was ${revivedFrom}; this heartbeat revived it.`,
      }]
      : [];
    return {
      data: {
        projectRoot: project.root,
        recordPath: shown,
        status: next.status,
        progress: flags.progress,
        stage: next.stage,
        beats: next.heartbeats.length,
        truncated: next.truncated,
        revived,
        lastBeatAt: next.lastBeatAt,
      },
      warnings,
      human:
        `heartbeat recorded: ${next.status} ${flags.progress}% (${next.heartbeats.length} beat(s) on record${
          next.truncated ? ", the oldest dropped" : ""
        })`,
    };
  },
});
