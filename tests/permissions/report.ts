/**
 * Turns raw permission-audit events into the committed report: used values
 * by kind (paths folded into categories so no machine path is written), and
 * for each grant of the `peaks` set what used it, or why it stays although
 * the test machine cannot use it.
 */

export interface Grant {
  kind: string;
  value: string;
  /** Normalised uses this grant covered during the run. */
  observed: string[];
  /** Why the grant stays when nothing used it here (another platform, a safety net). */
  reason: string | null;
}

export interface AuditReport {
  tool: string;
  deno: string;
  processes: number;
  checks: number;
  demo: string;
  /** The `peaks` permission set of deno.json, as it was when the report was made. */
  granted: Record<string, unknown>;
  used: Record<string, string[]>;
  grants: Grant[];
  /** Grants with no use and no reason: the set is wider than it needs to be. */
  unjustified: string[];
  /** Attempts the tests make on purpose to show the runtime refusing them. */
  refusedOnPurpose: string[];
  /** Uses no grant covers other than those (must stay empty). */
  ungranted: string[];
}

/** What tests/commands/permissions/install_test.ts and the headroom tests try so the runtime refuses it. */
export const REFUSED_ON_PURPOSE = ["net:192.0.2.1", "import:deno.land"];

/** Grants that Linux test runs cannot exercise, and why they stay. */
export const REASONS: Record<string, string> = {
  "env:USERPROFILE":
    "Windows: the home folder when HOME is unset (user-scope skills and settings, the 1.x global config).",
  "env:PATHEXT": "Windows: executable extensions when looking for vendor CLIs on PATH.",
  "net:[::1]": "IPv6 loopback: a headroom proxy listening on ::1 (localhost may resolve there).",
  "net:localhost":
    "The default headroom address is http://localhost:8787 (the tests use 127.0.0.1).",
  "run:git":
    "Deno's audit log does not record run checks; peaks starts git by name for gitHead and the commit audit (lib/infra/git.ts, tested in tests/commands/sub-agent/finalize_test.ts).",
  "run:claude":
    "Detached mode starts the vendor CLI by name under the supervisor (lib/detached/, tested with a fake claude on PATH in tests/detached/*_test.ts).",
  "run:codex":
    "Detached mode vendor CLI (same path as claude; tests/detached/run_test.ts uses a fake codex).",
  "run:copilot":
    "Detached mode vendor CLI (lib/hosts/vendors.ts lists it; started by name, never through a shell).",
  "run:gemini":
    "Detached mode vendor CLI (lib/hosts/vendors.ts lists it; started by name, never through a shell).",
  "run:opencode":
    "Detached mode vendor CLI (lib/hosts/vendors.ts lists it; started by name, never through a shell).",
  "run:peaks":
    "The compiled binary starts its own supervisor as `peaks` when the peaks on PATH is the same file (lib/cli/runtime.ts drops the name otherwise; tests/detached/permissions_test.ts).",
  "run:deno":
    "Under `deno run` (development and tests) the supervisor is started through deno; a compiled binary drops this name at start-up (lib/cli/runtime.ts).",
  "import:localhost:0":
    "Narrows Deno's default import allow-list to a host that serves nothing: no remote module can be loaded at run time.",
  "env:TRAE_*": "IDE detection: Trae sets TRAE_* variables (tests exercise it in-process).",
  "env:CURSOR_*": "IDE detection: Cursor sets CURSOR_* variables (tests exercise it in-process).",
  "env:CODEX_*": "IDE detection: Codex sets CODEX_* variables (tests exercise it in-process).",
  "env:GEMINI_CLI": "IDE detection: Gemini CLI sets GEMINI_CLI.",
  "env:OPENCODE": "IDE detection: OpenCode sets OPENCODE.",
  "env:COPILOT_CLI": "IDE detection: Copilot CLI sets COPILOT_CLI (lib/hosts/copilot.ts).",
  "env:QWEN_CODE": "IDE detection: Qwen Code sets QWEN_CODE (lib/hosts/qwen.ts).",
};

interface Roots {
  repo: string;
  temp: string;
  denoDir: string;
  /** The folders on the test's PATH (vendor CLIs are looked up there). */
  pathDirs: string[];
}

function under(path: string, root: string): boolean {
  const base = root.replace(/\/+$/, "");
  return path === base || path.startsWith(`${base}/`);
}

/** A path folded into a category that says what it is without naming this machine. */
export function foldPath(value: string, roots: Roots): string {
  if (under(value, roots.temp)) {
    const rest = value.slice(roots.temp.replace(/\/+$/, "").length + 1).split("/");
    const inside = rest.slice(1);
    if (inside.length === 0) return "<temp>/<test folder>";
    const tail = inside.includes(".peaks") ? ".peaks/**" : "**";
    return `<temp>/<test folder>/${tail}`;
  }
  if (under(value, roots.denoDir)) return "<deno-dir>/**";
  if (under(value, roots.repo)) {
    const rel = value.slice(roots.repo.replace(/\/+$/, "").length + 1);
    return rel ? `<peaks source>/${rel.split("/")[0]}/**` : "<peaks source>";
  }
  if (under(roots.repo, value) || under(roots.temp, value)) {
    return "<a parent folder of the project>";
  }
  const parent = value.replace(/\/[^/]*$/, "") || "/";
  const name = value.slice(parent.length).replace(/^\//, "");
  if (roots.pathDirs.includes(parent)) return `<a PATH folder>/${name}`;
  if (under(roots.repo, parent) || under(roots.temp, parent)) {
    return `<a parent folder of the project>/${name}`;
  }
  return value;
}

/** `http://127.0.0.1:8787/v1/x`, `127.0.0.1:8787` and `[::1]:80` all become the host alone. */
export function hostOf(value: string): string {
  try {
    if (/^[a-z]+:\/\//.test(value)) return new URL(value).hostname;
  } catch {
    // Not a URL after all.
  }
  return value.replace(/:\d+$/, "");
}

function matches(kind: string, grant: string, use: string): boolean {
  if (kind === "env") {
    return grant.endsWith("*") ? use.startsWith(grant.slice(0, -1)) : use === grant;
  }
  if (kind === "net" || kind === "import") return use === grant || use.split(":")[0] === grant;
  if (kind === "run") return use === grant || use.split(/[\\/]/).pop() === grant;
  return false;
}

export function buildReport(
  events: Array<{ permission: string; value: string | null }>,
  granted: Record<string, unknown>,
  info: Roots & { processes: number; demo: string },
): AuditReport {
  const used: Record<string, Set<string>> = {};
  for (const { permission, value } of events) {
    let shown = value ?? "<all>";
    if (permission === "read" || permission === "write") shown = foldPath(shown, info);
    if (permission === "net" || permission === "import") shown = hostOf(shown);
    (used[permission] ??= new Set()).add(shown);
  }
  const grants: Grant[] = [];
  const covered = new Set<string>();
  for (const [kind, value] of Object.entries(granted)) {
    const values = value === true ? ["<all>"] : Array.isArray(value) ? value.map(String) : [];
    for (const grant of values) {
      const observed = [...(used[kind] ?? [])].filter((use) =>
        grant === "<all>" || matches(kind, grant, use)
      ).sort();
      for (const use of observed) covered.add(`${kind}:${use}`);
      grants.push({ kind, value: grant, observed, reason: REASONS[`${kind}:${grant}`] ?? null });
    }
  }
  const uncovered = Object.entries(used).flatMap(([kind, values]) =>
    [...values].filter((use) => !covered.has(`${kind}:${use}`)).map((use) => `${kind}:${use}`)
  ).sort();
  const refusedOnPurpose = uncovered.filter((use) => REFUSED_ON_PURPOSE.includes(use));
  const ungranted = uncovered.filter((use) => !REFUSED_ON_PURPOSE.includes(use));
  return {
    tool: "DENO_AUDIT_PERMISSIONS (Deno's permission audit log, one JSONL file per peaks process)",
    deno: Deno.version.deno,
    processes: info.processes,
    checks: events.length,
    demo: info.demo,
    granted,
    used: Object.fromEntries(
      Object.entries(used).sort(([a], [b]) => a.localeCompare(b)).map((
        [kind, values],
      ) => [kind, [...values].sort()]),
    ),
    grants,
    refusedOnPurpose,
    unjustified: grants.filter((g) => g.observed.length === 0 && !g.reason).map((g) =>
      `${g.kind}:${g.value}`
    ),
    ungranted,
  };
}

export function renderMarkdown(report: AuditReport): string {
  const lines = [
    "# Permission audit",
    "",
    "Generated by `deno task audit:permissions` (do not edit by hand): the whole test suite runs with",
    "Deno's permission audit (`DENO_AUDIT_PERMISSIONS`) on every peaks process started through the",
    "shared test support code, and this page lists every permission those processes used next to the",
    "`peaks` set in `deno.json` (the set the compiled binary carries).",
    "`tests/repo/permissions_audit_test.ts` fails when `deno.json` grants anything this report does not",
    "justify, and `tests/commands/permissions/install_test.ts` shows the runtime refusing what the set leaves out.",
    "",
    `- Deno ${report.deno}; ${report.processes} peaks processes; ${report.checks} permission checks.`,
    `- Demo: ${report.demo}.`,
    `- Grants without a use or a reason: ${
      report.unjustified.length ? report.unjustified.join(", ") : "none"
    }.`,
    `- Uses no grant covers: ${report.ungranted.length ? report.ungranted.join(", ") : "none"}.`,
    `- Refused on purpose by the tests (logged by the audit, stopped by the runtime): ${
      report.refusedOnPurpose.join(", ") || "none"
    }.`,
    "",
    "## Grants",
    "",
    "| Kind | Granted | Used for | Why it stays |",
    "| --- | --- | --- | --- |",
  ];
  for (const g of report.grants) {
    const observed = g.observed.length
      ? g.observed.slice(0, 8).map((o) => `\`${o}\``).join(", ") +
        (g.observed.length > 8 ? `, … (${g.observed.length})` : "")
      : "—";
    lines.push(`| ${g.kind} | \`${g.value}\` | ${observed} | ${g.reason ?? ""} |`);
  }
  lines.push(
    "",
    "## Not granted",
    "",
    "`sys`, `ffi` and unscoped `run`, `net` or `env` are not granted. The runtime refuses them before",
    "anything happens, and peaks reports the refusal as `PERMISSION_DENIED` (exit 1) or, for the",
    "headroom proxy, as the warning `HEADROOM_UNAVAILABLE` with the reason `NotCapable`.",
    "",
  );
  return `${lines.join("\n")}\n`;
}
