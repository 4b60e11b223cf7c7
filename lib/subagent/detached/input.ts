/** What detached dispatch receives from `sub-agent dispatch` once the record's inputs are known. */
import type { Warning } from "../../core/errors.ts";
import type { GitHead } from "../../core/git.ts";
import type { IdeEntry } from "../../core/ide.ts";
import type { Project } from "../../core/project.ts";
import type { ArtifactMeta } from "../../core/records.ts";
import type { PromptBudgetStep } from "../dispatch_record.ts";
import type { PromptInput } from "../prompt_input.ts";
import type { Replay } from "../replay.ts";
import type { RuntimeArgs } from "../runtime_args.ts";

export interface DetachedDispatchFlags {
  vendor?: string;
  timeout: number;
  "max-concurrent": number;
  "no-throttle": boolean;
  "vendor-permissions"?: string;
  brief: "inline" | "pointer";
  ide?: string;
}

export interface DetachedInput {
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
