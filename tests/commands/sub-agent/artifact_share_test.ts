import { assert, assertEquals, assertMatch } from "@std/assert";
import { runPeaks } from "../../support/cli.ts";
import { tempDir, writeText } from "../../support/temp.ts";
import { initWorkspace, readJson, recordPathOf } from "../../support/subagent.ts";
import { runNextAction } from "../../support/next_actions.ts";
import { join } from "../../../lib/infra/std.ts";

const CLAUDE = { CLAUDECODE: "1" };

async function dispatch(cwd: string, role = "ui", batch = "b1") {
  const result = await runPeaks(
    [
      "sub-agent",
      "dispatch",
      role,
      "--request-id",
      "001-login",
      "--batch-id",
      batch,
      "--prompt",
      "work",
      "--json",
    ],
    { cwd, env: CLAUDE },
  );
  assertEquals(result.code, 0, result.stderr);
  // The lean envelope does not repeat the batch id the caller gave.
  return {
    ...result.json.data,
    batchId: batch,
    dispatchRecordPath: recordPathOf(cwd, result.json.data.record),
  };
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

Deno.test("artifact registers size, sha256 and summary under the record; again replaces it", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const { dispatchRecordPath } = await dispatch(dir.path);
  const path = `.peaks/_sub_agents/${sid}/artifacts/001-login-ui-002.md`;
  await writeText(join(dir.path, path), "first");
  const first = await runPeaks(
    [
      "sub-agent",
      "artifact",
      "--record",
      dispatchRecordPath,
      "--path",
      path,
      "--summary",
      "layout",
      "--json",
    ],
    { cwd: dir.path },
  );
  assertEquals(first.code, 0, first.stderr);
  assertEquals(first.json.data.artifact, {
    ...first.json.data.artifact,
    path,
    size: 5,
    sha256: await sha256("first"),
    status: "created",
    summary: "layout",
    rid: "001-login",
    role: "ui",
    idx: 2,
  });
  await Deno.writeTextFile(join(dir.path, path), "second version");
  await runPeaks(
    [
      "sub-agent",
      "artifact",
      "--record",
      dispatchRecordPath,
      "--path",
      path,
      "--status",
      "partial",
      "--json",
    ],
    { cwd: dir.path },
  );
  const record = await readJson(join(dir.path, dispatchRecordPath));
  assertEquals(record.artifactMetas.length, 1);
  assertEquals(record.artifactMetas[0].size, 14);
  assertEquals(record.artifactMetas[0].status, "partial");
  const list = await runPeaks(["sub-agent", "list", "--json"], { cwd: dir.path });
  const meta = list.json.data.records[0].artifactMetas[0];
  assert(JSON.stringify(meta).length <= 200, JSON.stringify(meta));
});

Deno.test("artefact paths follow the convention; over 1 MiB is ARTIFACT_TOO_LARGE (exit 3)", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const { dispatchRecordPath } = await dispatch(dir.path);
  const reg = (path: string) =>
    runPeaks(["sub-agent", "artifact", "--record", dispatchRecordPath, "--path", path, "--json"], {
      cwd: dir.path,
    });
  for (const bad of [`.peaks/_sub_agents/${sid}/artifacts/001-login-qa-001.md`, "README.md"]) {
    await writeText(join(dir.path, bad), "x");
    const result = await reg(bad);
    assertEquals([result.code, result.json.code], [2, "ARTIFACT_PATH_INVALID"], bad);
    assertMatch(result.json.message, /001-login-ui-NNN\.<ext>/);
  }
  const big = `.peaks/_runtime/${sid}/ui/huge.md`;
  await writeText(join(dir.path, big), "x".repeat(1024 * 1024 + 1));
  const large = await reg(big);
  assertEquals([large.code, large.json.code], [3, "ARTIFACT_TOO_LARGE"]);
  assertMatch(large.json.message, /Split it/);
  const missing = await reg(`.peaks/_runtime/${sid}/ui/none.md`);
  assertEquals([missing.code, missing.json.code], [2, "FILE_NOT_FOUND"]);
});

Deno.test("share: last write wins, large values warn, 64 KiB is refused", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const { batchId } = await dispatch(dir.path);
  const share = (key: string, value: string) =>
    runPeaks([
      "sub-agent",
      "share",
      "--batch",
      batchId,
      "--key",
      key,
      "--value",
      value,
      "--from",
      "ui",
      "--json",
    ], {
      cwd: dir.path,
    });
  const first = await share("ui.completed", '{"v":1}');
  assertEquals(first.json.warnings, []);
  const second = await share("ui.completed", '{"v":2}');
  assertEquals(second.json.warnings.map((w: { code: string }) => w.code), ["LAST_WRITE_WINS"]);
  const large = await share("ui.notes", JSON.stringify("y".repeat(2000)));
  assertEquals(large.json.warnings.map((w: { code: string }) => w.code), ["SHARE_VALUE_LARGE"]);
  const refused = await share("ui.blob", JSON.stringify("z".repeat(64 * 1024)));
  assertEquals([refused.code, refused.json.code], [3, "SHARE_VALUE_TOO_LARGE"]);
  const plain = await share("ui.note", "not json");
  assertEquals(plain.json.warnings.map((w: { code: string }) => w.code), ["VALUE_NOT_JSON"]);
  const badKey = await share("has space", "1");
  assertEquals([badKey.code, badKey.json.code], [2, "INVALID_KEY"]);
  const unknown = await runPeaks(
    ["sub-agent", "share", "--batch", "nope", "--key", "a", "--value", "1", "--json"],
    { cwd: dir.path },
  );
  assertEquals([unknown.code, unknown.json.code], [1, "BATCH_NOT_FOUND"]);

  const read = await runPeaks(["sub-agent", "shared-read", "--batch", batchId, "--json"], {
    cwd: dir.path,
  });
  const entries = read.json.data.entries;
  assertEquals(entries.map((e: { key: string }) => e.key), ["ui.completed", "ui.notes", "ui.note"]);
  assertEquals(entries[0].value, { v: 2 });
  assertEquals(entries[0].from, "ui");
});

Deno.test("shared-read filters by key glob and --since", async () => {
  await using dir = await tempDir();
  await initWorkspace(dir.path);
  const { batchId } = await dispatch(dir.path);
  for (const key of ["rd-planning.completed", "qa-test-cases.completed", "ui.design-blocker"]) {
    await runPeaks(["sub-agent", "share", "--batch", batchId, "--key", key, "--value", "{}"], {
      cwd: dir.path,
    });
  }
  const completed = await runPeaks(
    ["sub-agent", "shared-read", "--batch", batchId, "--key", "*.completed", "--json"],
    { cwd: dir.path },
  );
  assertEquals(completed.json.data.entries.map((e: { key: string }) => e.key), [
    "rd-planning.completed",
    "qa-test-cases.completed",
  ]);
  const all = await runPeaks(["sub-agent", "shared-read", "--batch", batchId, "--json"], {
    cwd: dir.path,
  });
  const since = all.json.data.entries[1].at;
  const later = await runPeaks(
    ["sub-agent", "shared-read", "--batch", batchId, "--since", since, "--json"],
    { cwd: dir.path },
  );
  assertEquals(later.json.data.entries.map((e: { key: string }) => e.key), ["ui.design-blocker"]);
  const badSince = await runPeaks(
    ["sub-agent", "shared-read", "--batch", batchId, "--since", "yesterday", "--json"],
    { cwd: dir.path },
  );
  assertEquals([badSince.code, badSince.json.data.flag], [2, "since"]);
});

Deno.test("the channel stays under 1 MiB by evicting the oldest entries; big reads are bounded", async () => {
  await using dir = await tempDir();
  const sid = await initWorkspace(dir.path);
  const { batchId } = await dispatch(dir.path);
  const value = JSON.stringify("v".repeat(60 * 1024));
  let evicted: string[] = [];
  for (let i = 0; i < 20; i++) {
    const result = await runPeaks(
      ["sub-agent", "share", "--batch", batchId, "--key", `k${i}`, "--value", value, "--json"],
      { cwd: dir.path },
    );
    assertEquals(result.code, 0, result.stderr);
    evicted = evicted.concat(result.json.data.evicted);
  }
  assert(evicted.length >= 2, String(evicted));
  assertEquals(evicted, Array.from({ length: evicted.length }, (_, i) => `k${i}`), "oldest first");
  const file = join(dir.path, ".peaks", "_sub_agents", sid, "shared", `${batchId}.json`);
  assert((await Deno.stat(file)).size <= 1024 * 1024);
  const channel = JSON.parse(await Deno.readTextFile(file));
  assertEquals(channel.entries.at(-1).key, "k19");
  assertEquals(channel.evicted, evicted.length);
  assertEquals(channel.entries.length + evicted.length, 20);

  const read = await runPeaks(["sub-agent", "shared-read", "--batch", batchId, "--json"], {
    cwd: dir.path,
  });
  assert(read.stdout.length < 40_000, `${read.stdout.length}`);
  const omitted = read.json.data.entries.filter((e: { valueOmitted?: boolean }) => e.valueOmitted);
  assert(omitted.length > 0);
  assertEquals(read.json.nextActions.length, omitted.length);
  const one = await runNextAction(read.json.nextActions[0], { cwd: dir.path });
  assertEquals(one.json.data.entries[0].value, "v".repeat(60 * 1024));
});
