/**
 * The shapes hot commands check state files with (lib/core/shape): they are
 * the zod schemas written out, they only ever say yes where the schema
 * accepts the value unchanged, and the files peaks writes pass them (so the
 * fast path is the one taken).
 */
import { assert, assertEquals } from "@std/assert";
import type { z } from "zod";
import { join } from "../../lib/infra/std.ts";
import { fits, type Shape } from "../../lib/infra/shape/shape.ts";
import { shapeOf } from "../../tools/shape_from_zod.ts";
import * as shapes from "../../lib/state/shapes.ts";
import {
  DispatchRecordSchema,
  RecordFileSchema,
  SubAgentResultSchema,
} from "../../lib/state/record.ts";
import { SessionBindingSchema, SessionMetaSchema } from "../../lib/state/session.ts";
import { ContextReadingSchema, PresenceSchema } from "../../lib/state/presence.ts";
import { BatchSchema } from "../../lib/state/batch.ts";
import { ChannelSchema } from "../../lib/state/channel.ts";
import { PreferencesSchema } from "../../lib/state/preferences.ts";
import { RequestMetaSchema } from "../../lib/state/request.ts";
import { ScanResultSchema } from "../../lib/state/scan_result.ts";
import { OverrideLedgerSchema } from "../../lib/state/overrides.ts";
import { SwarmPlanSchema } from "../../lib/state/swarm_plan.ts";
import { splitFrontMatter } from "../../lib/request/file.ts";
import { initWorkspace } from "../support/subagent.ts";
import { runPeaks } from "../support/cli.ts";
import { tempDir } from "../support/temp.ts";
import { rng } from "../support/prng.ts";
import { mutate } from "../support/mutate.ts";
import { z as zod } from "../../lib/infra/zod.ts";

const PAIRS: [string, Shape, z.ZodType, z.ZodType][] = [
  ["record", shapes.RECORD_SHAPE, DispatchRecordSchema, RecordFileSchema],
  ["session binding", shapes.SESSION_BINDING_SHAPE, SessionBindingSchema, SessionBindingSchema],
  ["session meta", shapes.SESSION_META_SHAPE, SessionMetaSchema, SessionMetaSchema],
  ["presence", shapes.PRESENCE_SHAPE, PresenceSchema, PresenceSchema],
  ["context reading", shapes.CONTEXT_READING_SHAPE, ContextReadingSchema, ContextReadingSchema],
  ["batch", shapes.BATCH_SHAPE, BatchSchema, BatchSchema],
  ["channel", shapes.CHANNEL_SHAPE, ChannelSchema, ChannelSchema],
  ["preferences", shapes.PREFERENCES_SHAPE, PreferencesSchema, PreferencesSchema],
  ["request", shapes.REQUEST_META_SHAPE, RequestMetaSchema, RequestMetaSchema],
  ["scan result", shapes.SCAN_RESULT_SHAPE, ScanResultSchema, ScanResultSchema],
  ["override ledger", shapes.OVERRIDE_LEDGER_SHAPE, OverrideLedgerSchema, OverrideLedgerSchema],
  ["sub-agent result", shapes.SUB_AGENT_RESULT_SHAPE, SubAgentResultSchema, SubAgentResultSchema],
  ["swarm plan", shapes.SWARM_PLAN_SHAPE, SwarmPlanSchema, SwarmPlanSchema],
];

Deno.test("shapes.ts is its schemas written out (run `deno task shapes` after changing one)", () => {
  for (const [name, shape, schema] of PAIRS) {
    assertEquals(shape, shapeOf(schema), `${name}: shapes.ts is stale`);
  }
});

Deno.test("what a shape cannot judge is a doubt: refinements, transforms, a default to fill", () => {
  assertEquals(shapeOf(zod.string().refine((s) => s !== "x")), { t: "doubt" });
  assertEquals(shapeOf(zod.string().trim()), { t: "doubt" });
  assertEquals(shapeOf(zod.string().transform(Number)), { t: "doubt" });
  const defaulted = shapeOf(zod.object({ list: zod.array(zod.string()).default([]) }));
  assert(!fits(defaulted, {}), "a missing defaulted key would be filled in by zod");
  assert(fits(defaulted, { list: ["a"] }));
  const stripping = shapeOf(zod.object({ a: zod.string() }));
  assert(!fits(stripping, { a: "x", b: 1 }), "zod would strip b: not the same value");
  assert(fits(shapeOf(zod.looseObject({ a: zod.string() })), { a: "x", b: 1 }));
  assert(!fits(shapeOf(zod.strictObject({ a: zod.string() })), { a: "x", b: 1 }));
});

/** The state files one small workflow writes, with the schema each one is read through. */
async function liveFiles(root: string): Promise<[string, unknown][]> {
  const files: [string, unknown][] = [];
  const walk = async (dir: string): Promise<void> => {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) await walk(path);
      else if (entry.name.endsWith(".json")) {
        files.push([path.slice(root.length + 1), JSON.parse(await Deno.readTextFile(path))]);
      } else if (path.includes("/requests/") && entry.name.endsWith(".md")) {
        files.push([path.slice(root.length + 1), splitFrontMatter(await Deno.readTextFile(path))]);
      }
    }
  };
  await walk(join(root, ".peaks"));
  return files;
}

/** A request file stands for its front matter's fields (what the schema checks). */
function frontMatterFields([path, value]: [string, unknown]): [string, unknown] {
  return path.endsWith(".md") ? [path, (value as { fields: unknown }).fields] : [path, value];
}

function pairFor(path: string): (typeof PAIRS)[number] | undefined {
  const name = path.split("/").at(-1)!;
  const byName = (label: string) => PAIRS.find((p) => p[0] === label);
  if (name.startsWith("dispatch-")) return byName("record");
  if (name.endsWith(".md")) return byName("request");
  if (path === ".peaks/preferences.json") return byName("preferences");
  if (path === ".peaks/project-scan/project-scan.json") return byName("scan result");
  if (name.startsWith("batch-")) return byName("batch");
  if (path.includes("/shared/")) return byName("channel");
  if (name === "presence.json" || path.includes("/presence/")) return byName("presence");
  if (path === ".peaks/_runtime/session.json") return byName("session binding");
  if (name === "swarm-plan.json") return byName("swarm plan");
  if (/^\.peaks\/_runtime\/[^/]+\/session\.json$/.test(path)) return byName("session meta");
  return undefined;
}

Deno.test("the files a workflow writes pass their shapes, so hot commands never load zod for them", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const cwd = dir.path;
  const run = async (args: string[]) => {
    const out = await runPeaks([...args, "--json"], { cwd, env: { CLAUDECODE: "1" } });
    assertEquals(out.code, 0, `${args.join(" ")}: ${out.stdout}${out.stderr}`);
    return out.json;
  };
  await run(["session", "title", sid, "Fix the login page (ログイン)"]);
  await run(["preferences", "set", "--key", "swarmMode", "--value", "swarm", "--apply"]);
  await run(["request", "init", "--role", "prd", "--id", "001-login", "--apply"]);
  await run(["scan", "archetype"]);
  await run(["skill", "presence:set", "peaks-code", "--mode", "swarm", "--gate", "startup"]);
  const sent = await run([
    "sub-agent",
    "dispatch",
    "rd",
    "--request-id",
    "001-login",
    "--batch-id",
    "b1",
    "--prompt",
    "work",
  ]);
  const record = String(sent.data.record);
  await run([
    "sub-agent",
    "heartbeat",
    "--record",
    record,
    "--status",
    "running",
    "--progress",
    "40",
  ]);
  await run([
    "sub-agent",
    "share",
    "--batch",
    "b1",
    "--key",
    "rd.note",
    "--value",
    '{"a":[1,null]}',
  ]);
  const files = await liveFiles(cwd);
  const checked = new Set<string>();
  for (const [path, value] of files.map(frontMatterFields)) {
    const pair = pairFor(path);
    if (!pair) continue;
    assert(fits(pair[1], value), `${path} does not pass the ${pair[0]} shape`);
    checked.add(pair[0]);
  }
  assertEquals(
    [...checked].sort(),
    [
      "batch",
      "channel",
      "preferences",
      "presence",
      "record",
      "request",
      "scan result",
      "session binding",
      "session meta",
    ],
  );
});

Deno.test("a shape never says yes where its schema says no or changes the value (mutation runs)", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const env = { CLAUDECODE: "1" };
  await runPeaks(["session", "title", sid, "A title"], { cwd: dir.path, env });
  await runPeaks(["skill", "presence:set", "peaks-code", "--mode", "swarm"], {
    cwd: dir.path,
    env,
  });
  await runPeaks(["sub-agent", "dispatch", "ui", "--batch-id", "b2", "--prompt", "p"], {
    cwd: dir.path,
    env,
  });
  await runPeaks(["sub-agent", "share", "--batch", "b2", "--key", "k", "--value", "1"], {
    cwd: dir.path,
    env,
  });
  const bases = new Map<string, unknown[]>();
  await runPeaks(
    ["preferences", "set", "--key", "headroom.enabled", "--value", "true", "--apply"],
    {
      cwd: dir.path,
      env,
    },
  );
  await runPeaks(["request", "init", "--role", "qa", "--id", "002-x", "--apply"], {
    cwd: dir.path,
    env,
  });
  await runPeaks(["scan", "archetype"], { cwd: dir.path, env });
  for (const [path, value] of (await liveFiles(dir.path)).map(frontMatterFields)) {
    const pair = pairFor(path);
    if (pair) bases.set(pair[0], [...(bases.get(pair[0]) ?? []), value]);
  }
  bases.set("context reading", [{ ratioPct: 42, source: "claude-code", at: "t", usedTokens: 9 }]);
  // What `request transition --allow-incomplete` writes (request_override_test makes real ones).
  bases.set("override ledger", [{
    version: 1,
    sessionId: "2026-12-01-session-abcdef",
    entries: [{
      at: "2026-12-01T00:00:00.000Z",
      rid: "001-x",
      role: "prd",
      from: "draft",
      to: "confirmed-by-user",
      reason: "the user accepted it as is",
      bypassed: ["lint", "prerequisites"],
    }],
  }]);
  // A converged plan (swarm_plan_test and swarm_converge_test write real ones through the CLI).
  bases.set("swarm plan", [{
    version: 1,
    rid: "001-x",
    sessionId: "2026-12-01-session-abcdef",
    type: "feature",
    status: "converged",
    note: null,
    frontendOnly: false,
    frontendOnlySource: "scan",
    frontendKeywordHit: true,
    matchedKeywords: ["page"],
    mode: "full-auto",
    modeSource: "presence",
    choice: null,
    subAgents: ["ui", "rd-planning", "qa-test-cases"],
    batchId: "swarm-001-x-1a2b3c",
    dag: { path: ".peaks/_runtime/s/sc/slice-dag.json", sha256: "a".repeat(64) },
    decidedAt: "2026-12-01T00:00:00.000Z",
    convergence: {
      at: "2026-12-01T00:10:00.000Z",
      outcome: "ui-design-missing",
      handoffNotes: ["UI design missing: RD plans the UI inline"],
      members: [{
        role: "ui",
        final: "failed",
        recordPath: ".peaks/_sub_agents/s/dispatch-001-x-ui-a.json",
        recordStatus: "failed",
        resultStatus: null,
        reasons: ["record failed"],
        artefacts: [{ path: "ui/design-draft.md", ok: false, problems: ["missing"] }],
        note: "ui-design-missing",
        finalizedAtConverge: false,
      }],
    },
  }]);
  // Return JSON as the skills ask for it (finalize_test passes real ones to the command).
  bases.set("sub-agent result", [
    {
      role: "qa",
      rid: "001-x",
      status: "ok",
      verdict: "pass",
      artefacts: ["qa/test-report.md"],
      warnings: [],
      blockedReason: null,
      reason: null,
      diffSummary: "3 files",
    },
    { role: "rd", rid: "001-x", status: "blocked", artefacts: [], warnings: [{ a: 1 }], x: 2 },
  ]);
  bases.set("preferences", [
    ...(bases.get("preferences") ?? []),
    { schema_version: "2.0.0", headroom: { enabled: true, baseUrl: "http://127.0.0.1:8787" } },
  ]);
  const seed = Number(Deno.env.get("PEAKS_SEED") ?? Date.now() % 1_000_000);
  const random = rng(seed);
  let vouched = 0;
  let doubted = 0;
  for (const [name, shape, , fileSchema] of PAIRS) {
    for (const base of bases.get(name) ?? []) {
      for (let i = 0; i < 400; i++) {
        let sample = base;
        for (let m = random.int(1, 3); m > 0; m--) sample = mutate(sample, random);
        if (!fits(shape, sample)) {
          doubted++;
          continue;
        }
        vouched++;
        const parsed = fileSchema.safeParse(sample);
        assert(parsed.success, `seed ${seed}: ${name} shape vouched for a value zod refuses`);
        assertEquals(parsed.data, sample, `seed ${seed}: ${name}: zod changed a vouched value`);
      }
    }
  }
  assert(vouched > 100 && doubted > 100, `seed ${seed}: ${vouched} vouched, ${doubted} doubted`);
});
