import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { displayPath } from "../../workspace/paths.ts";
import { resolveProject } from "../../workspace/project.ts";
import { recordNotFound, updateRecord } from "../../record/record.ts";
import { resolveRecordFlag } from "../../record/record_flag.ts";
import { isoTime } from "../../infra/ids.ts";

export default defineCommand({
  name: "sub-agent brief",
  description:
    "Prints the full prompt stored in a dispatch record: the first step of a sub-agent dispatched with " +
    "--brief pointer (the default). Without --json the prompt is printed as is; with --json it is data.prompt. " +
    "The first call records briefedAt: the sub-agent started.",
  flags: {
    record: flag.string("The dispatch record named in your short prompt.", {
      placeholder: "<path>",
      required: true,
      max: 4096,
    }),
  },
  examples: ["peaks sub-agent brief --record .peaks/_sub_agents/<sid>/dispatch-<…>.json"],
  async run({ flags }, ctx) {
    const project = await resolveProject(ctx);
    const target = await resolveRecordFlag(ctx, project, flags.record);
    // The first read marks the record as started: a re-sent fan-out skips it from then on.
    const record = await updateRecord(target.path, (current) => {
      if (!current) throw recordNotFound(project, target.path);
      if (current.briefedAt) return { result: current };
      const marked = { ...current, briefedAt: isoTime(ctx.now()) };
      return { value: marked, result: marked };
    });
    if (!ctx.global.json) {
      await ctx.stdout.write(record.prompt.endsWith("\n") ? record.prompt : `${record.prompt}\n`);
    }
    return {
      data: {
        projectRoot: project.root,
        recordPath: displayPath(project.root, target.path),
        role: record.role,
        requestId: record.requestId,
        batchId: record.batchId,
        status: record.status,
        promptSize: record.promptSize,
        prompt: record.prompt,
      },
      raw: true,
    };
  },
});
