import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { PeaksError, usageError } from "../../infra/errors.ts";
import { displayPath } from "../../workspace/paths.ts";
import { guardFlagPath, resolveProject } from "../../workspace/project.ts";
import {
  type ArtifactMeta,
  readRecord,
  recordNotFound,
  updateExistingRecord,
} from "../../record/record.ts";
import { ARTIFACT_STATES, isTerminal } from "../../state/record.ts";
import {
  buildMeta,
  checkArtifactPath,
  compactMeta,
  measureArtifact,
} from "../../record/artifacts.ts";
import { SUMMARY_MAX } from "../../record/artifacts.ts";
import { resolveRecordFlag } from "../../record/record_flag.ts";
import { isoTime } from "../../infra/ids.ts";

export default defineCommand({
  name: "sub-agent artifact",
  description:
    "Registers an artefact a sub-agent wrote: {path, size, sha256, status, summary, writtenAt, rid, role, idx} " +
    "is stored in the record under its lock, so the orchestrator reads metadata (~200 characters) instead of the " +
    "file. The file must be .peaks/_sub_agents/<sid>/artifacts/<rid>-<role>-NNN.<ext> or lie under " +
    ".peaks/_runtime/<sid>/, and be at most 1 MiB (ARTIFACT_TOO_LARGE, exit 3). Registering a path again " +
    "replaces its entry.",
  flags: {
    record: flag.string("The dispatch record.", {
      placeholder: "<path>",
      required: true,
      max: 4096,
    }),
    path: flag.string("The artefact file.", { placeholder: "<file>", required: true, max: 4096 }),
    summary: flag.string("What the file holds, in one line.", {
      placeholder: "<text>",
      max: SUMMARY_MAX,
    }),
    status: flag.enum(ARTIFACT_STATES, "How complete the file is.", { default: "created" }),
  },
  examples: [
    'peaks sub-agent artifact --record .peaks/_sub_agents/<sid>/dispatch-<…>.json --path .peaks/_sub_agents/<sid>/artifacts/001-login-ui-001.md --summary "login page layout, 3 states" --json',
  ],
  exitNotes: ["3  ARTIFACT_TOO_LARGE: the file is over 1 MiB; split it and register each part"],
  async run({ flags }, ctx) {
    const project = await resolveProject(ctx);
    const target = await resolveRecordFlag(ctx, project, flags.record);
    const before = await readRecord(target.path);
    if (!before) throw recordNotFound(project, target.path);
    const path = await guardFlagPath(ctx, project, flags.path, { flag: "path" });
    const place = checkArtifactPath(
      project,
      target.sessionId,
      before.requestId,
      before.role,
      path,
      "path",
    );
    const measured = await measureArtifact(project, path);
    if (!measured) {
      throw usageError(
        "FILE_NOT_FOUND",
        `--path ${displayPath(project.root, path)} does not exist; write the file first.`,
        { data: { flag: "path", path: displayPath(project.root, path) } },
      );
    }
    const shownRecord = displayPath(project.root, target.path);
    const at = isoTime(ctx.now());
    const meta = await updateExistingRecord(
      project,
      target.path,
      (record) => {
        if (isTerminal(record.status)) {
          throw new PeaksError(
            "RECORD_TERMINAL",
            `The record ${shownRecord} is already ${record.status}; register artefacts before the final heartbeat.`,
            { data: { recordPath: shownRecord, status: record.status } },
          );
        }
        const shown = displayPath(project.root, path);
        const existing = record.artifactMetas.findIndex((m) => m.path === shown);
        const meta: ArtifactMeta = buildMeta(project, path, measured, {
          status: flags.status,
          summary: flags.summary ?? null,
          writtenAt: at,
          rid: record.requestId,
          role: record.role,
          idx: place.idx ??
            (existing === -1
              ? record.artifactMetas.length + 1
              : record.artifactMetas[existing].idx),
        });
        const metas = [...record.artifactMetas];
        if (existing === -1) metas.push(meta);
        else metas[existing] = meta;
        return { value: { ...record, updatedAt: at, artifactMetas: metas }, result: meta };
      },
    );
    return {
      data: {
        projectRoot: project.root,
        recordPath: shownRecord,
        artifact: meta,
        view: compactMeta(meta),
      },
      human: `registered ${meta.path} (${meta.size} bytes, sha256 ${meta.sha256.slice(0, 12)})`,
    };
  },
});
