/**
 * The same dispatch as a command line, for nextActions that re-run it with
 * a change (a detached vendor, --use-headroom, --force). The prompt is
 * passed as a file: one that came inline or through stdin is saved under
 * the session first, so the prompt text never appears in a command line.
 */
import type { Ctx } from "../infra/command/ctx.ts";
import { fileTimestamp } from "../infra/ids.ts";
import { displayPath } from "../workspace/paths.ts";
import type { Project } from "../workspace/project.ts";
import { roleFileName } from "../record/names.ts";
import { join } from "../infra/std.ts";
import { writeFileAtomic } from "../infra/fs/files.ts";
import type { PromptInput } from "./prompt_input.ts";

export interface Replay {
  role: string;
  sessionId: string;
  requestId?: string;
  batchId?: string;
  brief?: string;
  heartbeatInterval?: number;
  writeArtifacts: string[];
  graphNode?: string;
  workflowId?: string;
  /** Further words that repeat the caller's choices (e.g. the prompt-budget flags). */
  extraWords?: string[];
  /** The execution mode's words (`--mode detached --vendor …`); kept by every re-run. */
  modeWords?: string[];
}

export interface ReplayPlan {
  /** `peaks sub-agent dispatch <role> --prompt-file <p> ...` with the caller's choices. */
  words: string[];
  /** Project-relative path of the prompt file the words name. */
  promptFile: string;
  /** Writes the saved copy of an inline or stdin prompt; call it before handing out the words. */
  save(): Promise<void>;
}

/** Plans the re-run without writing anything; `save` writes the prompt copy when one is needed. */
export function replayPlan(
  ctx: Ctx,
  project: Project,
  replay: Replay,
  prompt: PromptInput,
): ReplayPlan {
  let path: string;
  let save = () => Promise.resolve();
  if (prompt.file) {
    path = prompt.file;
  } else {
    const name = `${replay.requestId ?? "adhoc"}-${roleFileName(replay.role)}-${
      fileTimestamp(ctx.now())
    }.md`;
    path = join(project.layout.promptsDir(replay.sessionId), name);
    let saved = false;
    save = async () => {
      if (saved) return;
      await writeFileAtomic(path, prompt.text);
      saved = true;
    };
  }
  const promptFile = displayPath(project.root, path);
  const words = ["peaks", "sub-agent", "dispatch", replay.role, "--prompt-file", promptFile];
  const optional: Array<[string, string | number | undefined]> = [
    ["--request-id", replay.requestId],
    ["--batch-id", replay.batchId],
    ["--brief", replay.brief],
    ["--heartbeat-interval", replay.heartbeatInterval],
    ["--graph-node", replay.graphNode],
    ["--workflow-id", replay.workflowId],
  ];
  for (const [flag, value] of optional) if (value !== undefined) words.push(flag, String(value));
  for (const artifact of replay.writeArtifacts) words.push("--write-artifact", artifact);
  words.push(...(replay.extraWords ?? []), ...(replay.modeWords ?? []));
  words.push("--session-id", replay.sessionId);
  return { words, promptFile, save };
}
