/** What a `--from-dag` call is made of: its flags, what it settled, and how to make it again. */
import { usageError } from "../infra/errors.ts";
import type { DagAnalysis } from "../dag/dag.ts";
import type { DetectedIde } from "../hosts/registry.ts";
import type { GitHead } from "../infra/git.ts";
import type { SessionContext } from "../session/session.ts";
import type { BudgetFlags } from "../dispatch/budget_step.ts";

export interface DagFlags extends BudgetFlags {
  prompt?: string;
  "prompt-file"?: string;
  "request-id"?: string;
  "session-id"?: string;
  "batch-id"?: string;
  ide?: string;
  brief: "inline" | "pointer";
  "write-artifact": string[];
  "heartbeat-interval": number;
  "graph-node"?: string;
  "workflow-id"?: string;
  "from-dag"?: string;
  "max-parallel": number;
  mode: "in-process" | "detached";
  vendor?: string;
  timeout: number;
  "max-concurrent": number;
  "no-throttle": boolean;
}

export interface DagInput {
  flags: DagFlags;
  args: Record<string, string | undefined>;
  given: ReadonlySet<string>;
}

export const DEFAULT_MAX_PARALLEL = 6;

/** What one `--from-dag` call works from, settled before anything is decided. */
export interface DagCall {
  flags: DagFlags;
  session: SessionContext;
  rid: string | undefined;
  givenBatch: string | undefined;
  batchId: string;
  workflowId: string | null;
  gitHead: Promise<GitHead | null>;
  analysis: DagAnalysis;
  dagPath: string;
  hash: string;
  detected: DetectedIde;
  /** The same call again (without budget flags and --project). */
  callWords: string[];
}

export function refuseSingleFlags(input: DagInput): void {
  const single = [
    input.args.role !== undefined && "<role>",
    ...["prompt", "prompt-file", "write-artifact", "graph-node"]
      .filter((name) => input.given.has(name)).map((name) => `--${name}`),
  ].filter((v): v is string => typeof v === "string");
  if (single.length) {
    throw usageError(
      "CONFLICTING_FLAGS",
      `--from-dag takes the role, prompt, artefacts and node id from each node; drop ${
        single.join(", ")
      }.`,
      { data: { flags: single } },
    );
  }
}

/** The same call for the next wave, or with a budget change (budget flags and --project added by the caller). */
export function dagCallWords(
  flags: DagFlags,
  session: SessionContext,
  dagPath: string,
  batchId: string,
): string[] {
  const words = ["peaks", "sub-agent", "dispatch", "--from-dag", dagPath, "--batch-id", batchId];
  const optional: Array<[string, string | number | undefined]> = [
    [
      "--max-parallel",
      flags["max-parallel"] === DEFAULT_MAX_PARALLEL ? undefined : flags["max-parallel"],
    ],
    ["--request-id", flags["request-id"]],
    ["--brief", flags.brief === "pointer" ? undefined : flags.brief],
    ["--ide", flags.ide],
    [
      "--heartbeat-interval",
      flags["heartbeat-interval"] === 30 ? undefined : flags["heartbeat-interval"],
    ],
    ["--workflow-id", flags["workflow-id"]],
  ];
  for (const [flag, value] of optional) if (value !== undefined) words.push(flag, String(value));
  if (session.sessionSource !== "binding") words.push("--session-id", session.sessionId);
  return words;
}
