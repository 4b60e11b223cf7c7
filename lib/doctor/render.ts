/** The human rendering of a doctor run: one line per check, then each finding with its fix. */
import type { CheckResult, Finding } from "./model.ts";

export function renderDoctor(
  header: string,
  checks: CheckResult[],
  findings: Finding[],
): string {
  const width = Math.max(...checks.map((c) => c.name.length));
  const lines = [header];
  for (const check of checks) {
    const mark = check.status === "finding"
      ? `${findings.filter((f) => f.check === check.name).length} finding(s)`
      : check.status;
    lines.push(`  ${check.name.padEnd(width)}  ${mark.padEnd(12)}  ${check.summary}`);
  }
  if (!findings.length) {
    lines.push("", "no findings");
    return lines.join("\n");
  }
  lines.push("");
  for (const finding of findings) {
    lines.push(`${finding.severity.toUpperCase()} ${finding.id}: ${finding.title}`);
    lines.push(`  ${finding.detail}`);
    if (finding.paths?.length) lines.push(`  paths: ${finding.paths.join(", ")}`);
    if (finding.fix) {
      lines.push(`  fix${finding.confirm ? " (ask the user first)" : ""}: ${finding.fix}`);
    }
  }
  return lines.join("\n");
}
