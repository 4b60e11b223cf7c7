/**
 * Swarm fixtures: a PRD written straight to disk in the state a test needs,
 * a project scan, the Gate-B artefacts of each member, and the real CLI for
 * planning, dispatching and finishing members.
 */
import { recordPathOf } from "./subagent.ts";
import { assertEquals } from "@std/assert";
import type { RunResult } from "./cli.ts";
import { type Workspace, workspace } from "./request_fixture.ts";
import { writeText } from "./temp.ts";
import { TECH_DOC } from "./request_fixture.ts";

export const CLAUDE = { CLAUDECODE: "1" };

export async function swarmWorkspace(root: string): Promise<Workspace> {
  return await workspace(root, CLAUDE);
}

export function prdText(rid: string, type: string, state: string, body: string): string {
  const at = "2026-11-29T10:00:00.000Z";
  return [
    "---",
    `rid: ${rid}`,
    "role: prd",
    `type: ${type}`,
    `state: ${state}`,
    `createdAt: ${at}`,
    `updatedAt: ${at}`,
    "---",
    `# PRD ${rid}`,
    "",
    "## Goals",
    "",
    body,
    "",
    "## Acceptance criteria",
    "",
    "- A1: it works as described",
    "",
  ].join("\n");
}

export async function writePrd(
  ws: Workspace,
  rid: string,
  options: { type?: string; state?: string; body?: string } = {},
): Promise<void> {
  await writeText(
    ws.requestPath("prd", rid),
    prdText(
      rid,
      options.type ?? "feature",
      options.state ?? "confirmed-by-user",
      options.body ?? "Speed up the export job on the server.",
    ),
  );
}

/** A minimal valid `project-scan.json`. */
export async function writeScan(ws: Workspace, frontendOnly: boolean): Promise<void> {
  await writeText(
    `${ws.root}/.peaks/project-scan/project-scan.json`,
    JSON.stringify({
      version: 1,
      scannedAt: "2026-11-29T10:00:00.000Z",
      archetype: "greenfield",
      confidence: 0.85,
      signals: [],
      frontendOnly,
      frontendOnlyReason: frontendOnly ? "react, no backend" : "a backend was found",
      stack: {
        language: "TypeScript",
        componentLibrary: null,
        css: null,
        buildTool: null,
        stateManagement: null,
        routing: null,
        testRunner: null,
      },
      legacyConstraints: [],
    }),
  );
}

/** A role request as its member leaves it: every placeholder replaced. */
export function roleRequest(rid: string, type: string, role: string, body: string): string {
  return prdText(rid, type, "draft", body).replace("role: prd", `role: ${role}`);
}

/** Writes a member's Gate-B files (its artefact and its role request), filled in. */
export async function writeArtefacts(
  ws: Workspace,
  rid: string,
  role: string,
  type = "feature",
): Promise<void> {
  switch (role) {
    case "ui":
      await ws.write(
        `ui/design-draft-${rid}.md`,
        "# Design draft\n\nA centred card with the form.\n",
      );
      await ws.write(
        `ui/requests/${rid}.md`,
        prdText(rid, type, "draft", "The login card.").replace("role: prd", "role: ui"),
      );
      return;
    case "rd-planning":
      if (type === "bugfix") {
        await ws.write(
          `rd/bug-analysis-${rid}.md`,
          "# Bug analysis\n\n## Root cause\n\nA race.\n\n## Fix approach\n\nA lock.\n",
        );
      } else {
        await ws.write(`rd/tech-doc-${rid}.md`, TECH_DOC);
      }
      await ws.write(`rd/requests/${rid}.md`, roleRequest(rid, type, "rd", "The plan in short."));
      return;
    case "qa-test-cases":
      await ws.write(`qa/test-cases/${rid}.md`, "# Tests\n\n## Test cases\n\n- TC1 (A1): login\n");
      await ws.write(`qa/requests/${rid}.md`, roleRequest(rid, type, "qa", "TC1 covers A1."));
      return;
  }
}

export interface Dispatched {
  plan: RunResult;
  dispatch: RunResult;
  /** Record path (project-relative) per member role. */
  records: Record<string, string>;
  batchId: string;
}

/** Plans in full-auto mode (unless `extra` says otherwise) and runs the plan's nextAction. */
export async function planAndDispatch(
  ws: Workspace,
  rid: string,
  extra: string[] = ["--mode", "full-auto"],
): Promise<Dispatched> {
  const plan = await ws.peaks("swarm", "plan", "--rid", rid, ...extra);
  assertEquals(plan.code, 0, plan.stdout + plan.stderr);
  const words = plan.json.nextActions[0].split(" ").slice(1).filter((w: string) => w !== "--json");
  const dispatch = await ws.peaks(...words);
  assertEquals(dispatch.code, 0, dispatch.stdout + dispatch.stderr);
  const records: Record<string, string> = {};
  (dispatch.json.data.records as string[]).forEach((id, i) => {
    const role = String(dispatch.json.data.toolCalls[i].args.description).split(" for ")[0];
    records[role] = recordPathOf(ws.root, id);
  });
  return { plan, dispatch, records, batchId: plan.json.data.batchId };
}

/** What a member's sub-agent and the orchestrator do at its end: share, beat, finalize. */
export async function finishMember(
  ws: Workspace,
  options: {
    record: string;
    role: string;
    rid: string;
    batchId: string;
    result?: "ok" | "blocked" | "skipped";
    outcome?: "done" | "failed";
    share?: boolean;
  },
): Promise<void> {
  const result = options.result ?? "ok";
  if (options.share !== false && result === "ok") {
    const shared = await ws.peaks(
      "sub-agent",
      "share",
      "--batch",
      options.batchId,
      "--key",
      `${options.role}.completed`,
      "--value",
      "[]",
      "--from",
      options.role,
    );
    assertEquals(shared.code, 0, shared.stdout);
  }
  const finalized = await ws.peaks(
    "sub-agent",
    "finalize",
    "--record",
    options.record,
    "--outcome",
    options.outcome ?? "done",
    "--result-json",
    JSON.stringify({
      role: options.role,
      rid: options.rid,
      status: result,
      artefacts: [],
      warnings: [],
      blockedReason: result === "blocked" ? "design source missing" : null,
      reason: result === "skipped" ? "non-frontend-request" : null,
    }),
  );
  assertEquals(finalized.code, 0, finalized.stdout);
}
