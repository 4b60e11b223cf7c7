/**
 * The Claude Code status line. Claude Code reads the project's local
 * settings, then the project's, then the user's; the first that sets
 * `statusLine` decides what is shown. jsonc-parser (settings may hold
 * comments) is loaded only when a settings file exists.
 */
import { PeaksError } from "../infra/errors.ts";
import { join } from "../infra/std.ts";
import type { Check, CheckOutcome } from "./model.ts";
import { isFile } from "../infra/fs/files.ts";
import { peaksLine } from "../infra/shell.ts";

interface SettingsFile {
  path: string;
  shown: string;
}

export const statuslineCheck: Check = {
  name: "statusline",
  async run({ project, ctx }) {
    const files: SettingsFile[] = [
      {
        path: join(project.root, ".claude", "settings.local.json"),
        shown: ".claude/settings.local.json",
      },
      { path: join(project.root, ".claude", "settings.json"), shown: ".claude/settings.json" },
    ];
    const home = ctx.env.get("HOME") || ctx.env.get("USERPROFILE");
    if (home) {
      files.push({
        path: join(home, ".claude", "settings.json"),
        shown: "~/.claude/settings.json",
      });
    }
    const outcome: CheckOutcome = { summary: "", findings: [] };
    for (const file of files) {
      if (!(await isFile(file.path))) continue;
      const [{ readSettings }, { isPeaksStatusline }] = await Promise.all([
        import("../settings/settings.ts"),
        import("../settings/statusline_entry.ts"),
      ]);
      let value: unknown;
      try {
        value = (await readSettings(file.path)).get("statusLine");
      } catch (error) {
        if (!(error instanceof PeaksError)) throw error;
        outcome.findings.push({
          id: "statusline.settings-invalid",
          severity: "warning",
          title: `${file.shown} is not valid JSON`,
          detail: `${error.message} Claude Code may ignore the whole file; fix it by hand.`,
          fix: null,
          paths: [file.shown],
        });
        continue;
      }
      if (value === undefined) continue;
      if (isPeaksStatusline(value)) {
        outcome.summary = `peaks status line set in ${file.shown}`;
        return outcome;
      }
      outcome.summary = `another status line set in ${file.shown}`;
      outcome.findings.push({
        id: "statusline.foreign",
        severity: "info",
        title: `Claude Code shows another status line (${file.shown})`,
        detail:
          `The user's own status line wins, so the swarm progress line is not shown. Replacing it is the user's call: ${
            peaksLine(project.root, ["statusline", "install"], ["--force"])
          } (project settings).`,
        fix: null,
        paths: [file.shown],
      });
      return outcome;
    }
    outcome.summary = "no status line set";
    outcome.findings.push({
      id: "statusline.missing",
      severity: "info",
      title: "The peaks status line is not installed",
      detail: "Claude Code shows the swarm's progress in its status line once it is installed.",
      fix: peaksLine(project.root, ["statusline", "install"]),
    });
    return outcome;
  },
};
