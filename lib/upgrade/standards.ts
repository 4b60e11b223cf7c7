/**
 * The standards part of the 1.x -> 2.0 upgrade. peaks 1.x spread its rules
 * over `.claude/rules/**`; 2.0 keeps standards in the CLAUDE.md block and
 * .peaks/standards/. Each 1.x rule file is backed up, its text kept under
 * .peaks/standards/legacy-rules/, and the original thinned to a short pointer
 * (marked, so a second run leaves it alone). The user's own rule files are
 * never touched.
 */
import { dirname, join } from "../infra/std.ts";
import { isPeaksRule, readRuleFiles, THINNED_MARKER } from "../standards/claude_rules.ts";
import { planOwnedFile } from "../standards/files.ts";
import { STANDARDS_README } from "../standards/render.ts";
import { assertWritable } from "../workspace/writable.ts";
import { backupFile, type Migration, rel, step, type StepReport } from "./steps.ts";
import { ensureDir, fileMode, readIfPresent, writeFileAtomic } from "../infra/fs/files.ts";

export function thinnedRule(ruleRel: string, keptAt: string): string {
  return [
    `${THINNED_MARKER} v1 -->`,
    `# ${ruleRel}`,
    "",
    `peaks 2.0 moved this rule file to \`${keptAt}\`.`,
    "Project standards now live in the peaks block of CLAUDE.md and AGENTS.md;",
    "preview them with `peaks standards update` and apply with `--apply`.",
    "",
  ].join("\n");
}

async function write(m: Migration, path: string, text: string, what: string): Promise<void> {
  if (m.dryRun) return;
  await assertWritable(m.project, path, what);
  await ensureDir(dirname(path));
  await writeFileAtomic(path, text, { mode: await fileMode(path) });
}

export async function migrateStandards(m: Migration): Promise<StepReport> {
  const details: string[] = [];
  const legacyRoot = join(m.project.layout.standardsDir, "legacy-rules");
  for (const rule of (await readRuleFiles(m.project)) ?? []) {
    if (rule.text.includes(THINNED_MARKER) || !isPeaksRule(rule.text)) continue;
    const keptPath = join(legacyRoot, ...rule.rel.split("/"));
    const kept = rel(m, keptPath);
    const existing = await readIfPresent(keptPath);
    const backup = await backupFile(m, rule.path);
    if (existing === undefined) await write(m, keptPath, rule.text, "a kept 1.x rule");
    else if (existing !== rule.text) {
      details.push(`${kept} already exists with other text; the original stays in ${backup}`);
    }
    await write(m, rule.path, thinnedRule(rule.rel, kept), "a thinned 1.x rule");
    details.push(`thinned ${rel(m, rule.path)} (text kept in ${kept}, backup ${backup})`);
  }
  const readme = join(m.project.layout.standardsDir, "README.md");
  const plan = await planOwnedFile(await readIfPresent(readme), STANDARDS_README);
  if (plan.kind === "write") {
    await write(m, readme, plan.text, "the standards README");
    details.push(`${plan.action === "create" ? "created" : "refreshed"} ${rel(m, readme)}`);
  } else if (plan.kind === "foreign") {
    details.push(`left ${rel(m, readme)} as it is: ${plan.reason}`);
  }
  const report = step("standards", m, details);
  // A README that is not peaks' is reported, but it is not a change.
  if (details.length && details.every((d) => d.startsWith("left "))) {
    return { step: "standards", status: "skipped", details };
  }
  return report;
}
