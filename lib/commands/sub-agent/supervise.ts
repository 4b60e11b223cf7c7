import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { DetachedInfoSchema } from "../../detached/runs.ts";
import { PeaksError } from "../../infra/errors.ts";
import { resolveProject } from "../../workspace/project.ts";
import { readRecord, recordNotFound } from "../../record/record.ts";
import { recordFileOf, runNameFor } from "../../record/names.ts";
import { describeIssues } from "../../infra/fs/json.ts";
import { ensureDir } from "../../infra/fs/files.ts";
import { resolveRecordFlag } from "../../record/record_flag.ts";
import { RunFiles } from "../../detached/run_files.ts";
import { supervise } from "../../detached/supervised_run.ts";

export default defineCommand({
  name: "sub-agent supervise",
  description:
    "Internal: started by `sub-agent dispatch --mode detached` as a detached process. Runs the record's vendor " +
    "CLI, streams its output to log.txt, heartbeats the record, enforces the timeout and writes exit.json and the " +
    "record's outcome on every way out. Not meant to be called by hand.",
  flags: {
    record: flag.string("The detached dispatch record to run.", {
      placeholder: "<path>",
      required: true,
      max: 4096,
    }),
  },
  examples: ["peaks sub-agent supervise --record .peaks/_sub_agents/<sid>/dispatch-<…>.json"],
  async run({ flags }, ctx) {
    // Whatever goes wrong in a callback, the run must still reach its final writes.
    globalThis.addEventListener("unhandledrejection", (event) => event.preventDefault());
    const project = await resolveProject(ctx);
    const target = await resolveRecordFlag(ctx, project, flags.record);
    const record = await readRecord(target.path);
    if (!record) throw recordNotFound(project, target.path);
    const parsed = DetachedInfoSchema.safeParse(record.detached);
    if (record.mode !== "detached" || !parsed.success) {
      // The flag is well formed and names a real record; it is just not a detached one.
      throw new PeaksError(
        "NOT_DETACHED",
        `${flags.record} is not a detached dispatch record${
          parsed.success ? "" : ` (${describeIssues(parsed.error)})`
        }.`,
        { data: { recordPath: flags.record } },
      );
    }
    if (record.status !== "queued") {
      throw new PeaksError(
        "RUN_ALREADY_STARTED",
        `The record is ${record.status}: a detached run is supervised once, from queued.`,
        { data: { recordPath: flags.record, status: record.status } },
      );
    }
    const info = parsed.data;
    const dir = project.layout.detachedRunDir(
      target.sessionId,
      record.requestId,
      runNameFor(recordFileOf(target.path), record.requestId),
    );
    await ensureDir(dir);
    const files = new RunFiles(dir);
    try {
      const ended = await supervise(ctx, project, target.path, record, info, files);
      return {
        data: { projectRoot: project.root, recordPath: flags.record, ...ended },
        exitCode: ended.outcome === "done" ? 0 : 1,
      };
    } finally {
      await files.closeLog();
      await files.removeTransient();
      await files.releaseLease();
    }
  },
});
