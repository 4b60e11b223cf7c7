import { defineCommand } from "../core/command/spec.ts";
import { flag } from "../core/command/flag.ts";
import { displayPath } from "../core/project/paths.ts";
import { resolveProject } from "../core/project/project.ts";
import { readRecord, recordNotFound } from "../core/record/record.ts";
import { resolveRecordFlag } from "./_record_flag.ts";

export default defineCommand({
  name: "sub-agent brief",
  description:
    "Prints the full prompt stored in a dispatch record: the first step of a sub-agent dispatched with " +
    "--brief pointer. Without --json the prompt is printed as is; with --json it is data.prompt.",
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
    const record = await readRecord(target.path);
    if (!record) throw recordNotFound(project, target.path);
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
