/** What `sub-agent dispatch` knows once the record's inputs are settled, whichever mode writes it. */
import type { Warning } from "../infra/errors.ts";
import type { GitHead } from "../infra/git.ts";
import type { IdeEntry } from "../hosts/registry.ts";
import type { Project } from "../workspace/project.ts";
import type { ArtifactMeta } from "../record/record.ts";
import type { PromptBudgetStep } from "../dispatch/new_record.ts";
import type { PromptInput } from "../dispatch/prompt_input.ts";
import type { Replay } from "../dispatch/replay.ts";
import type { RuntimeArgs } from "../dispatch/runtime_args.ts";

export interface DetachedDispatchFlags {
  vendor?: string;
  timeout: number;
  "max-concurrent": number;
  "no-throttle": boolean;
  "vendor-permissions"?: string;
  brief: "inline" | "pointer";
  ide?: string;
}

export interface RecordInputs {
  project: Project;
  runtime: RuntimeArgs;
  /** The orchestrator's IDE, kept in the record. */
  ide: IdeEntry;
  flags: DetachedDispatchFlags;
  artifactMetas: ArtifactMeta[];
  git: GitHead | null;
  graphNodeId: string | null;
  workflowId: string | null;
  now: Date;
  warnings: Warning[];
  prompt: PromptInput;
  replay: Replay;
}

/** The G9 gate of this dispatch for a given budget IDE and replay. */
export type BudgetFor = (ide: IdeEntry, replay: Replay) => PromptBudgetStep;
