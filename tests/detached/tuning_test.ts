/**
 * Per-role model and effort for detached runs: each vendor's command line
 * carries its own model and effort flags (none without a choice), a choice
 * the vendor cannot take is PREFERENCE_NOT_PASSED, and a detached dispatch,
 * single or --from-dag, starts the vendor with them and records them.
 */
import { assert, assertEquals } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { VENDORS } from "../../lib/hosts/vendors.ts";
import { invocation, type Launch } from "../../lib/detached/vendor_cli.ts";
import { vendorTuning } from "../../lib/detached/tuning.ts";
import { DetachedInfoSchema } from "../../lib/detached/runs.ts";
import { runPeaks } from "../support/cli.ts";
import {
  detachedEnv,
  dispatchDetached,
  fakeFiles,
  fakeVendors,
  readJsonFile,
  waitForExit,
} from "../support/detached.ts";
import { initWorkspace } from "../support/subagent.ts";
import { tempDir, writeText } from "../support/temp.ts";

const BASE: Launch = { permissions: "role", runDir: "/run" };
const TUNED: Launch = { ...BASE, model: "model-1", effort: "high" };

/** Each vendor's flags for model-1 and high, as the pinned CLIs take them. */
const EXPECTED = {
  claude: ["--model", "model-1", "--effort", "high"],
  codex: ["-m", "model-1", "-c", "model_reasoning_effort=high"],
  copilot: ["--model", "model-1", "--reasoning-effort", "high"],
  gemini: ["-m", "model-1"],
  opencode: ["-m", "model-1", "--variant", "high"],
};

function runAt(args: string[], run: string[]): number {
  return args.findIndex((_, i) => run.every((word, j) => args[i + j] === word));
}

function includesRun(args: string[], run: string[]): boolean {
  return runAt(args, run) >= 0;
}

for (const vendor of VENDORS) {
  Deno.test(`${vendor}: the launch's model and effort become its own flags, and nothing without them`, () => {
    const plain = invocation(vendor, "PROMPT", BASE).args;
    const tuned = invocation(vendor, "PROMPT", TUNED).args;
    assert(includesRun(tuned, EXPECTED[vendor]), `${vendor}: ${tuned.join(" ")}`);
    // Only the tuning words were added, everything else is as before.
    const at = runAt(tuned, EXPECTED[vendor]);
    assertEquals(tuned.toSpliced(at, EXPECTED[vendor].length), plain);
    assert(!plain.includes("model-1"));
  });
}

Deno.test("claude: the posture's --allowedTools stays last; opencode's prompt stays last", () => {
  const claude = invocation("claude", "PROMPT", TUNED).args;
  assertEquals(claude.slice(-2), ["--allowedTools", "Bash(peaks:*)"]);
  const opencode = invocation("opencode", "PROMPT", TUNED).args;
  assertEquals(opencode.at(-1), "PROMPT");
  const codex = invocation("codex", "PROMPT", TUNED).args;
  assertEquals(codex.at(-1), "-");
});

Deno.test("a choice the vendor cannot take is PREFERENCE_NOT_PASSED and left out", () => {
  const tuning = {
    model: { key: "models.rd", value: "model-1" },
    effort: { key: "effort.rd", value: "minimal" },
  };
  const gemini = vendorTuning("gemini", tuning);
  assertEquals(gemini.passed, { model: "model-1" });
  assertEquals(gemini.warnings.map((w) => [w.code, w.key]), [
    ["PREFERENCE_NOT_PASSED", "effort.rd"],
  ]);
  // claude's --effort lists its values; minimal is not one of them.
  const claude = vendorTuning("claude", tuning);
  assertEquals(claude.passed, { model: "model-1" });
  assert(String(claude.warnings[0]?.message).includes("--effort takes one of low"));
  for (const vendor of ["codex", "copilot", "opencode"] as const) {
    assertEquals(vendorTuning(vendor, tuning), {
      passed: { model: "model-1", effort: "minimal" },
      warnings: [],
    });
  }
  assertEquals(vendorTuning("claude", undefined), { passed: {}, warnings: [] });
});

Deno.test("a record whose model could pass for a flag is not a detached record the supervisor runs", () => {
  const info = {
    runDir: "r",
    vendor: "claude",
    requestedVendor: null,
    input: "stdin",
    timeoutMs: 1000,
    owner: { sessionId: "s", callerId: null },
  };
  assert(DetachedInfoSchema.safeParse({ ...info, model: "opus", effort: "high" }).success);
  assert(!DetachedInfoSchema.safeParse({ ...info, model: "--dangerously-skip" }).success);
  assert(!DetachedInfoSchema.safeParse({ ...info, effort: "--x" }).success);
});

async function tunedProject(preferences: unknown) {
  const dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  await writeText(join(dir.path, ".peaks", "preferences.json"), JSON.stringify(preferences));
  return { dir, sid };
}

async function vendorArgs(root: string, sid: string): Promise<string[][]> {
  const files = await fakeFiles(root, sid, "args-");
  return await Promise.all(
    files.map(async (file) => (await Deno.readTextFile(file)).trim().split("\n")),
  );
}

Deno.test("detached dispatch with models.rd and effort.rd starts codex with -m and its effort, and records them", async () => {
  const { dir, sid } = await tunedProject({
    schema_version: "2.0.0",
    models: { rd: "gpt-test-1" },
    effort: { rd: "high" },
  });
  await using _ = dir;
  const bin = await fakeVendors(dir.path, { codex: "ok" });
  const run = await dispatchDetached(dir.path, detachedEnv(bin), "rd", [
    "--vendor",
    "codex",
    "--prompt",
    "x",
  ]);
  const { data, warnings } = run.result.json;
  assertEquals([data.detached.model, data.detached.effort], ["gpt-test-1", "high"]);
  assertEquals(warnings, []);
  assertEquals((await waitForExit(run.runDir)).outcome, "done");
  const record = await readJsonFile(run.recordPath);
  assertEquals([record.detached.model, record.detached.effort], ["gpt-test-1", "high"]);
  const [args] = await vendorArgs(dir.path, sid);
  assert(includesRun(args, ["-m", "gpt-test-1"]), args.join(" "));
  assert(includesRun(args, ["-c", "model_reasoning_effort=high"]), args.join(" "));
});

Deno.test("detached gemini takes the model, not the effort: PREFERENCE_NOT_PASSED; another role gets neither", async () => {
  const { dir, sid } = await tunedProject({
    schema_version: "2.0.0",
    models: { rd: "gemini-test" },
    effort: { rd: "low" },
  });
  await using _ = dir;
  const bin = await fakeVendors(dir.path, { gemini: "ok" });
  const env = detachedEnv(bin);
  const run = await dispatchDetached(dir.path, env, "rd", ["--vendor", "gemini", "--prompt", "x"]);
  const { data, warnings } = run.result.json;
  assertEquals([data.detached.model, data.detached.effort], ["gemini-test", undefined]);
  assertEquals(warnings.map((w: { code: string; key: string }) => [w.code, w.key]), [
    ["PREFERENCE_NOT_PASSED", "effort.rd"],
  ]);
  await waitForExit(run.runDir);
  const qa = await dispatchDetached(dir.path, env, "qa", ["--vendor", "gemini", "--prompt", "y"]);
  assertEquals(qa.result.json.data.detached.model, undefined);
  await waitForExit(qa.runDir);
  const all = await vendorArgs(dir.path, sid);
  assertEquals(all.filter((args) => includesRun(args, ["-m", "gemini-test"])).length, 1);
  assert(all.every((args) => !args.includes("low")), JSON.stringify(all));
});

Deno.test("--from-dag --mode detached: an rd-planning node runs claude on rd's model and effort", async () => {
  const { dir, sid } = await tunedProject({
    schema_version: "2.0.0",
    models: { rd: "opus" },
    effort: { rd: "minimal" },
  });
  await using _ = dir;
  const bin = await fakeVendors(dir.path, { claude: "ok" });
  const dag = { nodes: [{ id: "plan", role: "rd-planning", prompt: "Plan it." }], edges: [] };
  await writeText(join(dir.path, "dag.json"), JSON.stringify(dag));
  const result = await runPeaks(
    ["sub-agent", "dispatch", "--from-dag", "dag.json", "--request-id", "r1"].concat(
      ["--mode", "detached", "--vendor", "claude", "--json"],
    ),
    { cwd: dir.path, env: detachedEnv(bin) },
  );
  assertEquals(result.code, 0, result.stdout + result.stderr);
  const warned = result.json.warnings.filter((w: { code: string }) =>
    w.code === "PREFERENCE_NOT_PASSED"
  );
  assertEquals(warned.map((w: { key: string }) => w.key), ["effort.rd"]);
  const [run] = result.json.data.detached;
  await waitForExit(join(dir.path, run.runDir));
  const record = await readJsonFile(join(dir.path, run.dispatchRecordPath));
  assertEquals([record.detached.model, record.detached.effort], ["opus", undefined]);
  const [args] = await vendorArgs(dir.path, sid);
  assert(includesRun(args, ["--model", "opus"]), args.join(" "));
  assert(!args.includes("--effort"), args.join(" "));
});
