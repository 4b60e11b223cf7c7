import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { DAG_MAX_BYTES, dagHash, parseDag } from "../../dag/dag.ts";
import { gateError, usageError } from "../../infra/errors.ts";
import { assertId } from "../../infra/ids.ts";
import { displayPath } from "../../workspace/paths.ts";
import { guardFlagPath } from "../../workspace/project.ts";
import { openSession, type SessionContext } from "../../session/session.ts";
import { isNotFound } from "../../infra/errors.ts";
import { exists } from "../../infra/fs/files.ts";
import { peaksLine } from "../../infra/shell.ts";
import { slicePlanProblems, SLICES_FORMAT } from "../../swarm/slice_rules.ts";
import { sliceBatch } from "../../workflow/slices.ts";
import { nextStep, stepActions, stepData } from "../../workflow/next.ts";

export default defineCommand({
  name: "swarm slices",
  description: "Checks the implementation slice DAG that RD planning wrote for a request " +
    "(.peaks/_runtime/<sid>/rd/slices-<rid>.json, or --file): the DAG rules of --from-dag (known nodes, " +
    "no cycle), every slice names the files or folders it owns (owns), no two slices of one level own the " +
    "same path or one inside another's, and slices that share a level run isolated (isolation: worktree). " +
    "Answers with the levels and the exact `sub-agent dispatch --from-dag` call that runs them; each " +
    "isolated slice gets its own git worktree and is merged back at finalize in DAG order. Once every " +
    "slice is merged it answers data.complete: true and the workflow's next step instead. When RD planning " +
    "wrote no slice DAG (the usual case: one RD sub-agent builds the change) it answers data.slices: false " +
    "and the workflow's next step.",
  flags: {
    rid: flag.string("The request the slices implement.", {
      placeholder: "<rid>",
      required: true,
      max: 128,
    }),
    file: flag.string("The slice DAG (default: rd/slices-<rid>.json of the session).", {
      placeholder: "<path>",
      max: 4096,
    }),
    "session-id": flag.string("Session to use instead of the active one.", {
      placeholder: "<sid>",
      max: 128,
    }),
  },
  examples: [
    "peaks swarm slices --rid 001-login --json",
    "peaks swarm slices --rid 001-login --file .peaks/_runtime/<sid>/rd/slices-001-login.json --json",
  ],
  exitNotes: [
    "2  DAG_INVALID: an unknown node, a cycle, or two slices of one level owning the same path",
    "3  SLICE_PLAN_INVALID: a slice owns nothing, or parallel slices are not isolated",
    "3  SLICES_NOT_FOUND: the --file given does not exist",
  ],
  async run({ flags }, ctx) {
    const rid = assertId(flags.rid, "--rid");
    if (flags["session-id"] !== undefined) assertId(flags["session-id"], "--session-id");
    const session = await openSession(ctx, flags["session-id"]);
    const { project, sessionId } = session;
    const path = flags.file === undefined
      ? project.layout.rdSlices(sessionId, rid)
      : await guardFlagPath(ctx, project, flags.file, { flag: "file" });
    const shown = displayPath(project.root, path);
    if (flags.file === undefined && !(await exists(path))) {
      // No slices is the usual case, not a refusal: RD implements the change as one sub-agent.
      const next = await nextStep(session, rid);
      return {
        data: { projectRoot: project.root, path: shown, slices: false, ...stepData(next) },
        nextActions: stepActions(next),
        human: `no slices for ${rid}: RD planning wrote no ${shown}, so one RD sub-agent ` +
          "implements the change",
      };
    }
    const analysis = await parseDag(await readSlices(path, shown), shown);
    const problems = slicePlanProblems(analysis, rid);
    if (problems.length) {
      throw gateError(
        "SLICE_PLAN_INVALID",
        `The slice DAG ${shown} cannot run: ${problems.slice(0, 3).join("; ")}${
          problems.length > 3 ? ` (and ${problems.length - 3} more)` : ""
        }.`,
        { data: { path: shown, problems }, instructions: [SLICES_FORMAT] },
      );
    }
    const hash = await dagHash(analysis.dag);
    const batchId = `slices-${rid}-${hash.slice(0, 6)}`;
    // Every slice of this DAG is merged: the workflow goes on (its RD step reviews the merge).
    const run = await sliceBatch(project, sessionId, batchId, ctx.now());
    const next = run?.complete ? await nextStep(session, rid) : undefined;
    return {
      data: {
        projectRoot: project.root,
        path: shown,
        sha256: hash,
        batchId,
        levels: analysis.levels,
        nodes: analysis.dag.nodes.map((n) => ({
          id: n.id,
          role: n.role,
          level: analysis.levelOf.get(n.id),
          isolation: n.isolation ?? null,
          owns: n.owns ?? [],
        })),
        widest: Math.max(...analysis.levels.map((l) => l.length)),
        ...(next ? { complete: true, ...stepData(next) } : {}),
      },
      nextActions: next ? stepActions(next) : [dispatchCall(session, shown, batchId, rid)],
      human: [
        `${shown}: ${analysis.dag.nodes.length} slice(s) in ${analysis.levels.length} level(s)${
          next ? ", every one merged" : ""
        }`,
        ...analysis.levels.map((ids, i) => `  level ${i + 1}: ${ids.join(", ")}`),
      ].join("\n"),
    };
  },
});

async function readSlices(path: string, shown: string): Promise<string> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    throw gateError(
      "SLICES_NOT_FOUND",
      `No slice DAG at ${shown}: RD planning writes it when the change splits into parts that can be built at the same time.`,
      { data: { path: shown }, instructions: [SLICES_FORMAT] },
    );
  }
  if (!info.isFile || info.size > DAG_MAX_BYTES) {
    throw usageError(
      "INVALID_FLAG_VALUE",
      `${shown} is ${info.isFile ? `over ${DAG_MAX_BYTES} bytes` : "not a regular file"}.`,
      { data: { flag: "file" } },
    );
  }
  return await Deno.readTextFile(path);
}

function dispatchCall(
  session: SessionContext,
  shown: string,
  batchId: string,
  rid: string,
): string {
  return peaksLine(session.project.root, [
    "sub-agent",
    "dispatch",
    "--from-dag",
    shown,
    "--batch-id",
    batchId,
    "--request-id",
    rid,
    ...(session.sessionSource === "binding" ? [] : ["--session-id", session.sessionId]),
  ]);
}
