import { assert, assertEquals, assertStringIncludes, assertThrows } from "@std/assert";
import { probeLease } from "../../lib/detached/runs.ts";
import { runNameFor } from "../../lib/record/names.ts";
import { PeaksError } from "../../lib/infra/errors.ts";
import { chooseVendor, VENDORS } from "../../lib/hosts/vendors.ts";
import { join } from "../../lib/infra/std.ts";
import { HISTORY_BOUNDARY, refuseHistoryBoundary } from "../../lib/detached/_history_boundary.ts";
import { composeDetachedPrompt } from "../../lib/dispatch/instructions.ts";
import { findResult } from "../../lib/detached/_result_scan.ts";
import { progressAt } from "../../lib/detached/supervised_run.ts";
import { invocation, VENDOR_CLI } from "../../lib/detached/vendor_cli.ts";
import type { RuntimeArgs } from "../../lib/dispatch/runtime_args.ts";
import { tempDir, writeText } from "../support/temp.ts";

const RESULT = { role: "rd", rid: "001", status: "ok", artefacts: ["a.md"], warnings: [] };

Deno.test("the return JSON is found as plain text, inside a vendor's JSON, and never from the template", () => {
  assertEquals(findResult(`working\n${JSON.stringify(RESULT)}\n`)?.artefacts, ["a.md"]);
  const wrapped = JSON.stringify({ type: "result", result: `Done.\n${JSON.stringify(RESULT)}` });
  assertEquals(findResult(`{"type":"init"}\n${wrapped}\n`)?.rid, "001");
  const template = { ...RESULT, artefacts: ["<path>"], diffSummary: "<files changed and why>" };
  assertEquals(findResult(JSON.stringify(template)), null);
  assertEquals(findResult('{"role": "rd", "status": "maybe"}'), null);
  assertEquals(findResult("no json here { role }"), null);
});

Deno.test("progress grows with time, half way after a minute, never past 95 before the end", () => {
  const start = new Date(0);
  assertEquals(progressAt(start, new Date(0)), 5);
  assertEquals(progressAt(start, new Date(60_000)), 50);
  let last = 0;
  for (const s of [1, 10, 30, 120, 600, 36_000]) {
    const p = progressAt(start, new Date(s * 1000));
    assert(p >= last && p <= 95, `${s}s: ${p}`);
    last = p;
  }
});

Deno.test("a run folder is named after its record, without the rid", () => {
  assertEquals(
    runNameFor("dispatch-001-login-rd-mx2eu9hx-2917.json", "001-login"),
    "rd-mx2eu9hx-2917",
  );
  assertEquals(runNameFor("dispatch-7-qa-x-ab12.json", "7"), "qa-x-ab12");
});

Deno.test("vendors take their prompt on stdin where documented; opencode as its run message", () => {
  assertEquals(
    Object.fromEntries(VENDORS.map((v) => [v, VENDOR_CLI[v].argvCap])),
    { claude: 8192, codex: 5120, copilot: 6144, gemini: 8192, opencode: 8192 },
  );
  const role = { permissions: "role" as const, runDir: "/r" };
  assertEquals(invocation("claude", "P", role), {
    args: [
      "-p",
      "--output-format",
      "json",
      "--permission-mode",
      "acceptEdits",
      "--allowedTools",
      "Bash(peaks:*)",
    ],
    stdin: "P",
    env: {},
    files: {},
  });
  assertEquals(invocation("codex", "P", role).args, [
    "exec",
    "--json",
    "--skip-git-repo-check",
    "-s",
    "workspace-write",
    "-c",
    "sandbox_workspace_write.exclude_slash_tmp=true",
    "-c",
    "sandbox_workspace_write.exclude_tmpdir_env_var=true",
    "-",
  ]);
  assertEquals(invocation("copilot", "P", role).args, [
    "--output-format",
    "json",
    "--allow-tool",
    "shell(peaks:*)",
    "--allow-tool",
    "write",
  ]);
  const gemini = invocation("gemini", "P", role);
  assertEquals(gemini.args, [
    "--output-format",
    "stream-json",
    "--skip-trust",
    "--approval-mode",
    "auto_edit",
    "--policy",
    "/r/gemini-policy.toml",
  ]);
  assertStringIncludes(gemini.files["gemini-policy.toml"], 'commandPrefix = "peaks"');
  const opencode = invocation("opencode", "P", role);
  assertEquals([opencode.args, opencode.stdin], [["run", "--format", "json", "P"], null]);
  const rules = JSON.parse(opencode.env.OPENCODE_PERMISSION);
  assertEquals([rules.edit, rules.bash], ["allow", { "*": "deny", "peaks *": "allow" }]);
  // The argument forms, as the vendors document them.
  assertEquals(VENDOR_CLI.claude.args("P", role).slice(0, 4), [
    "-p",
    "P",
    "--output-format",
    "json",
  ]);
  assertEquals(VENDOR_CLI.codex.args("P", role).at(-1), "P");
  assertEquals(VENDOR_CLI.copilot.args("P", role).slice(0, 2), ["-p", "P"]);
  assertEquals(VENDOR_CLI.gemini.args("P", role).slice(0, 2), ["-p", "P"]);
});

Deno.test("the read-only and full postures, per vendor", () => {
  const at = (permissions: "read-only" | "full") => ({ permissions, runDir: "/r" });
  assertEquals(invocation("claude", "P", at("read-only")).args.slice(3), [
    "--permission-mode",
    "dontAsk",
    "--allowedTools",
    "Bash(peaks:*)",
  ]);
  assertEquals(invocation("claude", "P", at("full")).args.slice(3), [
    "--permission-mode",
    "bypassPermissions",
  ]);
  assertEquals(invocation("codex", "P", at("read-only")).args.slice(3, 5), ["-s", "read-only"]);
  assertEquals(invocation("codex", "P", at("full")).args.slice(3, 5), ["-s", "danger-full-access"]);
  assertEquals(invocation("gemini", "P", at("read-only")).args.slice(3, 5), [
    "--approval-mode",
    "default",
  ]);
  assertEquals(invocation("gemini", "P", at("full")), {
    args: ["--output-format", "stream-json", "--skip-trust", "--approval-mode", "yolo"],
    stdin: "P",
    env: {},
    files: {},
  });
  assertEquals(
    JSON.parse(invocation("opencode", "P", at("read-only")).env.OPENCODE_PERMISSION).edit,
    "deny",
  );
  assertEquals(invocation("opencode", "P", at("full")).env, {});
  assertEquals(invocation("opencode", "P", at("full")).args, [
    "run",
    "--format",
    "json",
    "--auto",
    "P",
  ]);
  assertEquals(invocation("copilot", "P", at("full")).args.slice(2), ["--allow-all"]);
});

function runtime(): RuntimeArgs {
  return {
    projectRoot: "/p",
    sessionId: "2026-11-29-session-abcdef",
    requestId: "001-login",
    requestIdGenerated: false,
    batchId: "b1",
    role: "rd",
    ide: "codex",
    mode: null,
    requestType: null,
    projectScan: { path: ".peaks/project-scan/project-scan.md", exists: true },
    existingSystem: null,
    frontendOnly: null,
    frontendKeywordHit: null,
    markerPath: ".peaks/_runtime/s/system/sub-agent-rd.json",
    heartbeatIntervalSec: 30,
    declaredArtifacts: [".peaks/_runtime/s/rd/tech-doc.md"],
  };
}

Deno.test("the detached prompt is small and carries the task, files, references and rules", () => {
  const prompt = composeDetachedPrompt({
    runtime: runtime(),
    recordPath: ".peaks/_sub_agents/s/dispatch-001-login-rd-x-1234.json",
    runDir: ".peaks/_runtime/s/detached/001-login/rd-x-1234",
    vendor: "codex",
    permissions: "role",
  }, "Plan the login feature.");
  for (
    const part of [
      "# Detached sub-agent: rd for 001-login",
      "Plan the login feature.",
      ".peaks/_runtime/s/rd/tech-doc.md",
      "project scan .peaks/project-scan/project-scan.md",
      "peaks sub-agent artifact --record",
      "peaks sub-agent heartbeat --record",
      ".peaks/_runtime/s/detached/001-login/rd-x-1234/compact/<n>.json",
      "blocked-by-orchestrator-policy",
      '"rid":"001-login"',
      "edit files inside it with your file tools, and run `peaks`",
    ]
  ) assertStringIncludes(prompt, part);
  assert(new TextEncoder().encode(prompt).length < 3000, `${prompt.length} characters`);
  assert(!prompt.includes(HISTORY_BOUNDARY));
});

Deno.test("the history-boundary marker is refused wherever it appears", () => {
  refuseHistoryBoundary("a clean task", "flag");
  const error = assertThrows(
    () => refuseHistoryBoundary(`x ${HISTORY_BOUNDARY} y`, "stdin"),
    PeaksError,
  );
  assertEquals([error.code, error.exit], ["HISTORY_BOUNDARY_IN_PROMPT", 3]);
});

Deno.test("vendor choice: the requested one, else the host's own, else the first installed", async () => {
  await using dir = await tempDir();
  const bin = join(dir.path, "bin");
  for (const name of ["codex", "gemini"]) {
    await writeText(join(bin, name), "#!/bin/sh\n");
    await Deno.chmod(join(bin, name), 0o755);
  }
  await writeText(join(bin, "claude"), "not executable");
  const env = { get: (name: string) => (name === "PATH" ? bin : undefined) };
  assertEquals(await chooseVendor(env, "gemini"), {
    vendor: "gemini",
    fallbackFrom: null,
    installed: ["codex", "gemini"],
  });
  assertEquals((await chooseVendor(env, "claude", "gemini")).vendor, "gemini");
  assertEquals((await chooseVendor(env, "claude")).fallbackFrom, "claude");
  assertEquals((await chooseVendor(env, "claude")).vendor, "codex");
  assertEquals((await chooseVendor(env, undefined)).fallbackFrom, null);
  const none = { get: (name: string) => (name === "PATH" ? join(dir.path, "nothing") : undefined) };
  assertEquals(await chooseVendor(none, "claude"), {
    vendor: undefined,
    fallbackFrom: null,
    installed: [],
  });
});

Deno.test("a lease is alive while its lock is held, dead when the file is left unlocked", async () => {
  await using dir = await tempDir();
  const pid = join(dir.path, "pid");
  assertEquals(await probeLease(pid), "absent");
  await Deno.writeTextFile(pid, "1\n");
  assertEquals(await probeLease(pid), "dead");
  const holder = await Deno.open(pid, { read: true, write: true });
  await holder.lock(true);
  try {
    assertEquals(await probeLease(pid), "alive");
  } finally {
    holder.close();
  }
  assertEquals(await probeLease(pid), "dead");
});
