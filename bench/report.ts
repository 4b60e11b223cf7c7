/** The bench report as Markdown: one column group per target, side by side. */
import type { ConcurrencyReport } from "./concurrency.ts";
import type { DemoRun } from "./demo_time.ts";
import type { EnvelopeSize } from "./envelopes.ts";
import type { ReferenceRow, ScenarioRow, Skipped } from "./hot.ts";
import type { Stats } from "./measure.ts";
import type { PluginCost } from "./plugin_cost.ts";

export interface Machine {
  os: string;
  osRelease: string;
  arch: string;
  cpus: number;
  cpuModel: string | null;
  memoryGiB: number | null;
  deno: string;
  node: string | null;
  /**
   * 1-minute load average: at the start, the highest sample while the hot
   * commands ran (the bench itself adds about 1), and at the end (after the
   * bench's own concurrency storms).
   */
  loadStart: number | null;
  loadMax: number | null;
  loadEnd: number | null;
}

export interface Report {
  measuredAt: string;
  machine: Machine;
  runs: number;
  warmup: number;
  rssRuns: number;
  targets: Array<{ label: string; command: string; argv: string[] }>;
  references: ReferenceRow[];
  scenarios: ScenarioRow[];
  skipped: Skipped[];
  concurrency:
    | null
    | Array<{ target: string; result: ConcurrencyReport | null; failure?: string }>;
  envelopes: EnvelopeSize[] | null;
  demo: DemoRun[] | null;
  plugin?: PluginCost | null;
  walk?: WalkCost | null;
  /** `peaks hooks run`, timed `hookRuns` times each for a p99. */
  hooks?: ScenarioRow[] | null;
  hookRuns?: number;
}

/** What a hook may take at the 99th percentile (hosts run some on every tool call). */
export const HOOK_P99_TARGET_MS = 150;

function hooksSection(report: Report): string[] {
  const rows = report.hooks ?? [];
  const labels = report.targets.map((t) => t.label);
  const lines = [
    `Each hook call: ${report.warmup} warm-up and ${report.hookRuns} timed runs, stdin as the host ` +
    "sends it.",
    "",
    ...table(
      [
        "hook call",
        ...labels.flatMap((l) => [`${l} median ms`, "p95", "p99", "max", "failed"]),
      ],
      rows.map((row) => [
        `\`${cell(row.shown)}\``,
        ...row.results.flatMap((r) => [
          String(r.medianMs),
          String(r.p95Ms),
          String(r.p99Ms),
          String(r.maxMs),
          String(r.failures),
        ]),
      ]),
    ),
  ];
  const own = labels[0];
  const over = rows.filter((row) =>
    row.results.some((r) => r.target === own && (r.p99Ms ?? Infinity) >= HOOK_P99_TARGET_MS)
  );
  lines.push(
    "",
    over.length
      ? `p99 at or over ${HOOK_P99_TARGET_MS} ms for ${own}: ${
        over.map((r) => `\`${r.name}\``).join(", ")
      }.`
      : `Every hook call's p99 is under ${HOOK_P99_TARGET_MS} ms for ${own}.`,
  );
  return lines;
}

/** The literal-agent walk of a feature request (tests/agent): what the orchestrator read. */
export interface WalkCost {
  orchestratorCalls: number;
  orchestratorBytes: number;
  subAgentCalls: number;
  subAgentBytes: number;
  /** Skill text the orchestrator read: SKILL.md and the references the walk opened. */
  skillBytes?: number;
  failure?: string;
  /** Every other walk of `deno task walk`: its figures, or why it failed. */
  others?: Array<
    { name: string; calls: number; bytes: number; skillBytes: number; failure?: string }
  >;
}

const mib = (kb: number | null) => (kb === null ? "-" : (kb / 1024).toFixed(1));
const cell = (text: string) => text.replaceAll("|", "\\|");

function table(header: string[], rows: string[][]): string[] {
  return [
    `| ${header.join(" | ")} |`,
    `|${header.map((_, i) => (i === 0 ? "---" : "--:")).join("|")}|`,
    ...rows.map((row) => `| ${row.join(" | ")} |`),
  ];
}

function statCells(stats: Stats): string[] {
  if (stats.status === "failed") {
    return ["failed", "-", "-", "-", stats.runs ? `${stats.failures}/${stats.runs}` : "setup"];
  }
  return [
    String(stats.medianMs),
    String(stats.p95Ms),
    `${stats.minMs}–${stats.maxMs}`,
    mib(stats.peakRssKb),
    stats.failures ? `${stats.failures}/${stats.runs}` : "0",
  ];
}

/** A median as a multiple of a reference's, `1.35×`; "-" when either is missing. */
function ratio(ms: number | null, reference: number | null | undefined): string {
  return ms === null || !reference ? "-" : `${(ms / reference).toFixed(2)}×`;
}

/**
 * Each hot command's median over `node -e 0` and over an empty `deno run` (the
 * runtime's floor), both measured in the same run, and which calls are over 1.0× node.
 */
function ratioLines(report: Report): string[] {
  const node = report.references.find((r) => r.shown === "node -e 0")?.medianMs;
  const floor = report.references.find((r) => r.shown.startsWith("deno run"))?.medianMs;
  if (!node && !floor) return [];
  const own = report.targets[0].label;
  const rows = report.scenarios.map((row) => {
    const stats = row.results.find((r) => r.target === own);
    return { name: row.shown, ms: stats?.medianMs ?? null };
  });
  const over = rows.filter((r) => r.ms !== null && node && r.ms / node > 1);
  return [
    "",
    `Medians of ${own} as multiples of \`node -e 0\` and of an empty \`deno run\` (the floor):`,
    "",
    ...table(
      ["command", "/ node -e 0", "/ empty deno run"],
      rows.map((r) => [`\`${cell(r.name)}\``, ratio(r.ms, node), ratio(r.ms, floor)]),
    ),
    "",
    over.length
      ? `Over 1.0× \`node -e 0\`: ${over.map((r) => `\`${cell(r.name)}\``).join(", ")}.`
      : "Every hot command is at or under 1.0× `node -e 0`.",
  ];
}

function hotSection(report: Report): string[] {
  const labels = report.targets.map((t) => t.label);
  const header = [
    "command",
    ...labels.flatMap((l) => [`${l} median ms`, "p95", "min–max", "RSS MiB", "failed"]),
  ];
  const lines = table(
    header,
    report.scenarios.map((row) => [
      `\`${cell(row.shown)}\``,
      ...row.results.flatMap(statCells),
    ]),
  );
  const failures = report.scenarios.flatMap((row) =>
    row.results.filter((r) => r.failure).map((r) => `- ${r.target}, \`${row.name}\`: ${r.failure}`)
  );
  if (failures.length) lines.push("", "Failures:", "", ...failures.map(cell));
  if (report.skipped.length) {
    lines.push(
      "",
      `Skipped: ${report.skipped.map((s) => `\`${s.name}\` (${s.reason})`).join(", ")}.`,
    );
  }
  lines.push(...ratioLines(report));
  if (report.references.length) {
    lines.push(
      "",
      "For scale, measured in the same run:",
      "",
      ...table(
        ["program", "median ms", "p95", "min–max", "RSS MiB", "failed"],
        report.references.map((r) => [`\`${r.shown}\``, ...statCells(r)]),
      ),
    );
  }
  return lines;
}

function concurrencySection(report: Report): string[] {
  const entries = report.concurrency ?? [];
  const first = entries.find((e) => e.result)?.result;
  const lines = first ? [`${first.n} processes, ${first.parallel} at a time, per storm.`, ""] : [];
  const header = [
    "storm",
    ...entries.flatMap((
      e,
    ) => [
      `${e.target} per s`,
      "wall ms",
      "lock held ms",
      "lock wait ms",
      "failed",
      "lost updates",
      "invalid reads",
    ]),
  ];
  const storms = ["heartbeat", "share", "dispatch"] as const;
  const what = {
    heartbeat: "heartbeat, one record",
    share: "share, one channel",
    dispatch: "dispatch, one batch",
  };
  lines.push(...table(
    header,
    storms.map((storm) => [
      what[storm],
      ...entries.flatMap((e) => {
        const s = e.result?.[storm];
        if (!s) return ["failed", "-", "-", "-", "-", "-", "-"];
        return [
          String(s.throughputPerSec),
          String(s.wallMs),
          s.lockHoldMs === null ? "-" : String(s.lockHoldMs),
          s.lockWaitMs === null ? "-" : String(s.lockWaitMs),
          String(s.failures),
          String(s.lostUpdates),
          `${s.invalidReads} of ${s.reads}`,
        ];
      }),
    ]),
  ));
  lines.push(
    "",
    "Lock held and lock wait: medians over a storm's calls of the time each held the contended file's lock and waited for it (asking to holding, a rehearsal included), from their `PEAKS_PROFILE=1` lines; `-` for a CLI that does not report them.",
  );
  for (const e of entries) {
    if (e.failure) lines.push("", `- ${e.target}: ${cell(e.failure)}`);
    const dispatch = e.result?.dispatch;
    if (dispatch && (dispatch.duplicateNumbers || !dispatch.numberedOneToN)) {
      lines.push(
        "",
        `- ${e.target}: dispatch numbers not 1..n (${dispatch.duplicateNumbers} duplicates)`,
      );
    }
  }
  return lines;
}

/** Distinct failure reasons per target, listed once under a table whose cells say "failed". */
function reasons(failures: Array<{ target: string; failure?: string }>): string[] {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const { target, failure } of failures) {
    const line = `- ${target}: ${cell(failure ?? "failed")}`;
    if (!seen.has(line)) lines.push(line);
    seen.add(line);
  }
  return lines.length ? ["", ...lines] : [];
}

function envelopeSection(report: Report): string[] {
  const sizes = report.envelopes ?? [];
  return [
    ...table(
      ["call", ...report.targets.map((t) => `${t.label} bytes`)],
      sizes.map((size) => [
        `\`${cell(size.shown)}\``,
        ...size.results.map((r) => (r.bytes === null ? "failed" : String(r.bytes))),
      ]),
    ),
    ...reasons(sizes.flatMap((size) => size.results.filter((r) => r.bytes === null))),
  ];
}

function demoSection(report: Report): string[] {
  const runs = report.demo ?? [];
  const variants = [...new Set(runs.map((r) => r.variant))];
  const failed = runs.filter((r) => !r.ok).map((r) => ({
    ...r,
    target: `${r.target}, ${r.variant}`,
  }));
  return [
    ...table(
      ["run", ...report.targets.map((t) => t.label)],
      variants.map((variant) => [
        variant === "fast" ? "`deno task demo --fast`" : "`deno task demo`",
        ...report.targets.map((t) => {
          const run = runs.find((r) => r.variant === variant && r.target === t.label);
          if (!run) return "-";
          if (!run.ok) return "failed";
          const calls = run.peaksCalls === null
            ? ""
            : ` (${run.peaksCalls} peaks calls, median ${run.medianCallMs} ms)`;
          return `${(run.wallMs / 1000).toFixed(1)} s${calls}`;
        }),
      ]),
    ),
    ...reasons(failed),
  ];
}

function pluginSection(cost: PluginCost): string[] {
  if (cost.skipped) return [`Not measured: ${cost.skipped}.`];
  return [
    `\`claude plugin details peaks\` (Claude Code ${cost.claude}): ${cost.alwaysOn} always-on, added to every session.`,
    "",
    ...table(
      ["skill", "always-on", "on invoke"],
      cost.skills.map((s) => [`\`${s.skill}\``, s.alwaysOn, s.onInvoke]),
    ),
  ];
}

export function renderMarkdown(report: Report): string {
  const m = report.machine;
  const load = (v: number | null) => (v === null ? "?" : v.toFixed(2));
  const lines = [
    "# peaks performance report",
    "",
    `Measured ${report.measuredAt} on ${m.os} ${m.osRelease} ${m.arch}, ${m.cpus} cores` +
    `${m.cpuModel ? ` (${m.cpuModel})` : ""}${m.memoryGiB ? `, ${m.memoryGiB} GiB` : ""}; ` +
    `Deno ${m.deno}${m.node ? `, Node ${m.node}` : ""}. 1-minute load average ` +
    `${load(m.loadStart)} at the start and at most ${load(m.loadMax)} while the hot commands ` +
    "ran (the bench itself adds about 1).",
    "",
    `Each command: ${report.warmup} warm-up and ${report.runs} timed runs, the targets' runs ` +
    `alternating; peak RSS is the largest of ${report.rssRuns} more runs. Times are whole ` +
    "processes (spawn to exit); a failed run is counted, never timed.",
    "",
    ...report.targets.map((t) => `- **${t.label}**: \`${t.command}\``),
    "",
    "## Hot commands",
    "",
    ...hotSection(report),
  ];
  if (report.hooks) {
    lines.push("", "## Hook commands (`peaks hooks run`)", "", ...hooksSection(report));
  }
  if (report.concurrency) lines.push("", "## Concurrency", "", ...concurrencySection(report));
  if (report.envelopes) {
    lines.push("", "## Envelope sizes (bytes on stdout)", "", ...envelopeSection(report));
  }
  if (report.demo) lines.push("", "## Demo wall time", "", ...demoSection(report));
  if (report.walk) {
    const w = report.walk;
    lines.push(
      "",
      "## Literal-agent walk (feature request)",
      "",
      w.failure
        ? `Failed: ${cell(w.failure)}`
        : `\`deno task walk feature\`: the orchestrator made ${w.orchestratorCalls} peaks calls and read ` +
          `${w.orchestratorBytes} bytes; its sub-agents made ${w.subAgentCalls} calls and read ${w.subAgentBytes} bytes` +
          (w.skillBytes === undefined
            ? "."
            : `; the skill text it read was ${w.skillBytes} bytes.`),
    );
    if (w.others?.length) {
      lines.push(
        "",
        ...table(
          ["walk", "orchestrator calls", "bytes", "skill bytes", "result"],
          w.others.map((o) => [
            o.name,
            String(o.calls),
            String(o.bytes),
            String(o.skillBytes),
            o.failure ? cell(o.failure) : "txt finalized",
          ]),
        ),
      );
    }
  }
  if (report.plugin) {
    lines.push("", "## Skill tokens in Claude Code (plugin)", "", ...pluginSection(report.plugin));
  }
  return `${lines.join("\n")}\n`;
}
