/**
 * Tools that a few tests drive only where they are installed (shellcheck, zsh, fish, pwsh, curl,
 * wget). Without its tool such a test is ignored, never passed, and its name says which tool is
 * missing, so a run's output tells what it did not check.
 */
import { join } from "../../lib/infra/std.ts";

const windows = Deno.build.os === "windows";

/** The path of an executable on PATH (with PATHEXT on Windows), or undefined. */
export async function findTool(tool: string): Promise<string | undefined> {
  const dirs = (Deno.env.get("PATH") ?? "").split(windows ? ";" : ":").filter(Boolean);
  const names = windows
    ? [tool, ...(Deno.env.get("PATHEXT") ?? ".EXE;.CMD").split(";").map((ext) => tool + ext)]
    : [tool];
  for (const dir of dirs) {
    for (const name of names) {
      const info = await Deno.stat(join(dir, name)).catch(() => undefined);
      if (info?.isFile && (windows || ((info.mode ?? 0) & 0o111) !== 0)) return join(dir, name);
    }
  }
  return undefined;
}

export interface ToolNeed {
  /** Pass as the test's `ignore`. */
  ignore: boolean;
  /** Append to the test's name: empty, or " (ignored: <tool> is not on PATH)". */
  note: string;
}

/** Whether every tool is on PATH, and the note a test name carries when one is not. */
export async function needs(...tools: string[]): Promise<ToolNeed> {
  const missing: string[] = [];
  for (const tool of tools) if (!(await findTool(tool))) missing.push(tool);
  if (missing.length === 0) return { ignore: false, note: "" };
  return {
    ignore: true,
    note: ` (ignored: ${missing.join(" and ")} ${missing.length > 1 ? "are" : "is"} not on PATH)`,
  };
}
