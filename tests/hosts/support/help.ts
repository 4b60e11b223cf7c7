/**
 * The `--help` texts of the pinned host CLIs, as recorded under
 * tests/fixtures/hosts/help/ (`deno run -A tests/hosts/record_help.ts`
 * records them again). The unit suite checks peaks' vendor argv against
 * these files; the host suite checks that they are what the real CLIs print.
 */
import { fromFileUrl, join } from "../../../lib/infra/std.ts";
import type { HostId } from "./install.ts";

export const HELP_DIR = fromFileUrl(new URL("../../fixtures/hosts/help/", import.meta.url));

/** Which help pages of each host peaks' argv depends on. */
export const HELP_PAGES: Record<HostId, Array<{ name: string; args: string[] }>> = {
  claude: [{ name: "claude", args: ["--help"] }],
  codex: [{ name: "codex", args: ["--help"] }, { name: "codex-exec", args: ["exec", "--help"] }],
  gemini: [{ name: "gemini", args: ["--help"] }],
  opencode: [{ name: "opencode", args: ["--help"] }, {
    name: "opencode-run",
    args: ["run", "--help"],
  }],
  copilot: [{ name: "copilot", args: ["--help"] }],
  qwen: [{ name: "qwen", args: ["--help"] }],
};

/** Drops what varies between runs (first-run notices) and trailing blanks. */
export function normalizeHelp(text: string): string {
  return text
    .split("\n")
    .filter((line) => !/^Package extraction took \d+ms$/.test(line.trim()))
    .map((line) => line.trimEnd())
    .join("\n")
    .trim() + "\n";
}

export function helpFile(page: string): string {
  return join(HELP_DIR, `${page}.txt`);
}
