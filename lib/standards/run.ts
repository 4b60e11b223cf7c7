/**
 * `standards init` and `standards update`: plan every file, refuse when a
 * file is not peaks' to change (review-only, exit 3) or the block would be
 * generic for a legacy project (STANDARDS_GENERIC, exit 3), and write only
 * with --apply.
 */
import { flag } from "../infra/command/flag.ts";
import type { CommandResult } from "../infra/command/spec.ts";
import type { Ctx } from "../infra/command/ctx.ts";
import { type Project, resolveProject } from "../workspace/project.ts";
import { readScanResult, type ScanResult } from "../scan/result.ts";
import { checkStandardsBlock } from "./block.ts";
import { resolveSession } from "../session/session.ts";
import { displayPath } from "../workspace/paths.ts";
import { gateError, usageError, type Warning } from "../infra/errors.ts";
import { withLock } from "../infra/fs/lock.ts";
import { ensureGitignore } from "../workspace/skeleton.ts";
import { scanProject } from "../scan/scan.ts";
import { scanFilesExist, writeScanFiles } from "../scan/report.ts";
import { extractConventions } from "../scan/conventions.ts";
import {
  type ConventionSection,
  conventionsToSections,
  readConventionSections,
} from "../scan/existing_system_doc.ts";
import { gatherFacts } from "../scan/facts.ts";
import { isLegacyArchetype, renderBlockBody } from "./render.ts";
import { renderBlock } from "./files.ts";
import { applyPlans, type FilePlan, planTargets } from "./targets.ts";
import { listClaudeRules } from "./claude_rules.ts";
import { readIfPresent } from "../infra/fs/files.ts";
import { peaksLine } from "../infra/shell.ts";

export const standardsFlags = {
  apply: flag.boolean("Write the files (without it the command only reports the plan)."),
  "dry-run": flag.boolean("Report the plan and write nothing (the default)."),
  "session-id": flag.string("Session whose existing-system.md supplies the conventions.", {
    placeholder: "<sid>",
    max: 128,
  }),
};

type Flags = { apply: boolean; "dry-run": boolean; "session-id"?: string };

interface ConventionsSource {
  sections: ConventionSection[];
  source: string;
  /** Read from the session's existing-system.md (false: extracted in memory just now). */
  fromFile: boolean;
}

/** The stored scan, or a fresh one (written later, with --apply, once nothing refused). */
async function loadScan(
  project: Project,
  now: Date,
): Promise<{ scan: ScanResult; source: "existing" | "scanned"; problems: string[] }> {
  if (await scanFilesExist(project)) {
    const scan = await readScanResult(project);
    if (scan) return { scan, source: "existing", problems: [] };
  }
  const { result, problems } = await scanProject(project.root, now);
  return { scan: result, source: "scanned", problems };
}

async function loadConventions(
  ctx: Ctx,
  project: Project,
  explicitSession: string | undefined,
): Promise<ConventionsSource & { sessionId: string | null }> {
  let sessionId: string | null = null;
  try {
    sessionId = (await resolveSession(ctx, project, explicitSession)).sessionId;
  } catch (error) {
    if (explicitSession !== undefined) throw error;
  }
  if (sessionId) {
    const path = project.layout.existingSystem(sessionId);
    const text = await readIfPresent(path);
    if (text !== undefined) {
      return {
        sections: readConventionSections(text),
        source: displayPath(project.root, path),
        fromFile: true,
        sessionId,
      };
    }
  }
  const facts = await gatherFacts(project.root);
  return {
    sections: conventionsToSections(await extractConventions(facts)),
    source: "extracted now (no existing-system.md in the session)",
    fromFile: false,
    sessionId,
  };
}

export async function runStandards(
  ctx: Ctx,
  flags: Flags,
  which: "init" | "update",
): Promise<CommandResult> {
  if (flags.apply && flags["dry-run"]) {
    throw usageError("CONFLICTING_FLAGS", "--apply and --dry-run exclude each other; pick one.", {
      data: { flag: "apply" },
    });
  }
  const project = await resolveProject(ctx);
  const root = project.root;
  const { scan, source: scanSource, problems } = await loadScan(project, ctx.now());
  const legacy = isLegacyArchetype(scan);
  const conventions = legacy ? await loadConventions(ctx, project, flags["session-id"]) : null;
  const body = renderBlockBody({ scan, conventions: conventions?.sections ?? null });
  const gate = checkStandardsBlock(await renderBlock(body));
  const sessionArgs = flags["session-id"] ? ["--session-id", flags["session-id"]] : [];
  const run: Run = {
    project,
    which,
    scan,
    legacy,
    conventions,
    rerun: (extra) => peaksLine(root, ["standards", which], [...sessionArgs, ...extra]),
    extractCmd: peaksLine(root, ["scan", "existing-system"], [...sessionArgs]),
  };
  if (legacy && (!gate.namesStack || !conventions?.sections.length)) {
    throw genericRefused(run, gate.namesStack);
  }
  const { files, gitignore } = await planAndApply(run, body, flags.apply, scanSource);
  const rules = await listClaudeRules(project);
  const reviewOnly = files.filter((f) => f.status === "review-only");
  if (reviewOnly.length) throw reviewOnlyRefused(run, files, rules);
  const warnings: Warning[] = problems.map((message) => ({ code: "SCAN_PARTIAL", message }));
  return {
    data: {
      projectRoot: root,
      mode: flags.apply ? "apply" : "dry-run",
      archetype: scan.archetype,
      frontendOnly: scan.frontendOnly,
      scan: { source: scanSource, path: displayPath(root, project.layout.projectScan) },
      conventions: conventions
        ? {
          required: true,
          source: conventions.source,
          sections: conventions.sections.map((s) => s.title),
        }
        : { required: false, source: null, sections: [] },
      gateG: { namesStack: gate.namesStack, hasConventions: Boolean(conventions?.sections.length) },
      files,
      rules,
      gitignore,
      instructions: flags.apply
        ? ["Standards written. Mention the CLAUDE.md / AGENTS.md changes in the handoff."]
        : [
          "Dry run: report each file's status to the user as the standards increment; apply only when the mode allows it.",
        ],
    },
    warnings,
    nextActions: nextActionsOf(run, files, rules, flags.apply),
    human: humanReport(flags.apply, scan, files, rules),
  };
}

/** One standards call, as the steps after loading see it. */
interface Run {
  project: Project;
  which: "init" | "update";
  scan: ScanResult;
  legacy: boolean;
  conventions: (ConventionsSource & { sessionId: string | null }) | null;
  rerun: (extra: string[]) => string;
  extractCmd: string;
}

type FileReport = FilePlan["report"];
type RuleReport = Awaited<ReturnType<typeof listClaudeRules>>[number];

/** A legacy project whose block would name no stack or no conventions gets no block at all. */
function genericRefused(run: Run, namesStack: boolean): Error {
  const { project, scan, conventions } = run;
  const missing = [
    ...(namesStack ? [] : ["the stack (the scan found no stack element)"]),
    ...(conventions?.sections.length ? [] : ["conventions (existing-system.md has none)"]),
  ];
  return gateError(
    "STANDARDS_GENERIC",
    `Refusing generic standards for a ${scan.archetype} project: the block would name no ${
      missing.join(" and no ")
    }.`,
    {
      data: { projectRoot: project.root, archetype: scan.archetype, missing },
      instructions: [
        "Run the existing-system extraction in a session, complete its TO COMPLETE headings from the code, then preview again.",
      ],
      nextActions: conventions?.sessionId
        ? [run.extractCmd, run.rerun([])]
        : [peaksLine(project.root, ["workspace", "init"]), run.extractCmd],
    },
  );
}

/**
 * Planned once without a lock, so a refusal leaves no trace (not even a lock
 * file); with --apply, planned again under the lock before anything is written.
 */
async function planAndApply(
  run: Run,
  body: string,
  apply: boolean,
  scanSource: "existing" | "scanned",
): Promise<{ files: FileReport[]; gitignore: string | null }> {
  const { project, scan } = run;
  const plan = () =>
    planTargets(project, { scan, body, conventions: run.conventions?.sections ?? null }, run.which);
  const files = (await plan()).map((p) => p.report);
  if (!apply || files.some((f) => f.status === "review-only")) return { files, gitignore: null };
  return await withLock(project.layout.standardsDir, async () => {
    const plans = await plan();
    if (plans.some((p) => p.report.status === "review-only")) {
      return { files: plans.map((p) => p.report), gitignore: null };
    }
    const outcome = await ensureGitignore(project);
    if (scanSource === "scanned") await writeScanFiles(project, scan);
    return { files: await applyPlans(project, plans), gitignore: outcome };
  });
}

function reviewOnlyRefused(run: Run, files: FileReport[], rules: RuleReport[]): Error {
  const reviewOnly = files.filter((f) => f.status === "review-only");
  return gateError(
    "STANDARDS_REVIEW_ONLY",
    `Left ${reviewOnly.map((f) => f.path).join(", ")} alone: ${
      reviewOnly.map((f) => f.reason).join("; ")
    }. Nothing was written.`,
    {
      data: { projectRoot: run.project.root, files, rules },
      instructions: [
        "Merge or remove the foreign block by hand (keep what the user wrote), then preview again.",
      ],
      nextActions: [run.rerun([])],
    },
  );
}

function nextActionsOf(
  run: Run,
  files: FileReport[],
  rules: RuleReport[],
  apply: boolean,
): string[] {
  const nextActions: string[] = [];
  const pending = files.some((f) => f.status === "planned");
  if (!apply && pending) nextActions.push(run.rerun(["--apply"]));
  const { conventions } = run;
  if (run.legacy && conventions && !conventions.fromFile && conventions.sessionId) {
    nextActions.push(run.extractCmd);
  }
  if (rules.some((r) => r.peaksManaged)) {
    nextActions.push(peaksLine(run.project.root, ["upgrade", "--detect-1x"]));
  }
  return nextActions;
}

/** What happened to a standards file, in words: `created with the peaks block`. */
function fileWords(f: FileReport): string {
  const done: Record<string, string> = {
    create: "created with the peaks block",
    append: "peaks block appended after your text",
    refresh: "peaks block refreshed",
    none: "unchanged",
  };
  const planned: Record<string, string> = {
    create: "would be created with the peaks block",
    append: "would get the peaks block appended after your text",
    refresh: "would get its peaks block refreshed",
    none: "unchanged",
  };
  if (f.status === "appended") return done[f.action];
  if (f.status === "planned") return planned[f.action];
  if (f.status === "review-only") return "not written: review it by hand";
  if (f.status === "skipped") return "left as it is";
  return f.status;
}

function humanReport(
  apply: boolean,
  scan: ScanResult,
  files: FileReport[],
  rules: RuleReport[],
): string {
  return [
    `${apply ? "applied" : "dry run"} (${scan.archetype})`,
    ...files.map((f) => `  ${f.path}: ${fileWords(f)}${f.reason ? ` (${f.reason})` : ""}`),
    ...rules.map((r) =>
      `  ${r.status.padEnd(11)} read    ${r.path}${r.peaksManaged ? " - written by peaks 1.x" : ""}`
    ),
  ].join("\n");
}
