import { assert, assertEquals, assertMatch } from "@std/assert";
import { tempDir } from "../../support/temp.ts";
import { pool } from "../../support/cli.ts";
import { readyRequest, transition, workspace } from "../../support/request_fixture.ts";

Deno.test("--allow-incomplete needs a reason, is recorded, and the 4th use in a session is refused", async () => {
  await using dir = await tempDir();
  const ws = await workspace(dir.path);
  for (const rid of ["a", "b", "c", "d"]) {
    await ws.peaks("request", "init", "--role", "prd", "--id", rid, "--apply");
  }
  const bare = await transition(ws, "prd", "a", "confirmed-by-user", "--allow-incomplete");
  assertEquals(bare.code, 2);
  assertEquals(bare.json.code, "MISSING_FLAG");
  assertEquals(bare.json.data.flag, "reason");

  for (const [i, rid] of ["a", "b", "c"].entries()) {
    const used = await transition(
      ws,
      "prd",
      rid,
      "confirmed-by-user",
      "--allow-incomplete",
      "--reason",
      `spike ${rid}`,
    );
    assertEquals(used.code, 0, used.stdout);
    assertEquals(used.json.data.allowIncomplete.bypassed, ["lint"]);
    assertEquals(used.json.data.allowIncomplete.used, i + 1);
    assertEquals(used.json.data.allowIncomplete.remaining, 2 - i);
  }
  const fourth = await transition(
    ws,
    "prd",
    "d",
    "confirmed-by-user",
    "--allow-incomplete",
    "--reason",
    "again",
  );
  assertEquals(fourth.code, 3);
  assertEquals(fourth.json.code, "ALLOW_INCOMPLETE_LIMIT");
  assertEquals(fourth.json.data.used.length, 3);
  const still = await ws.peaks("request", "show", "d", "--role", "prd");
  assertEquals(still.json.data.state, "draft", "a refused override changes nothing");

  const plain = await transition(ws, "prd", "d", "confirmed-by-user");
  assertEquals(plain.json.code, "LINT_GATE_FAILED");
  assertMatch(plain.json.data.instructions.at(-1), /used up for this session/);

  const request = await Deno.readTextFile(ws.requestPath("prd", "a"));
  assertMatch(request, /draft → confirmed-by-user \(allow-incomplete \(lint\); reason: spike a\)/);
  const ledger = JSON.parse(
    await Deno.readTextFile(`${dir.path}/.peaks/_runtime/${ws.sid}/request-overrides.json`),
  );
  assertEquals(ledger.sessionId, ws.sid);
  assertEquals(ledger.entries.map((e: { rid: string; reason: string }) => `${e.rid}:${e.reason}`), [
    "a:spike a",
    "b:spike b",
    "c:spike c",
  ]);
});

Deno.test("a prerequisite gap can be overridden too, and an override that is not needed is not counted", async () => {
  await using dir = await tempDir();
  const ws = await workspace(dir.path);
  await readyRequest(ws, "qa", "r1");
  const skipped = await transition(
    ws,
    "qa",
    "r1",
    "running",
    "--allow-incomplete",
    "--reason",
    "cases come later",
  );
  assertEquals(skipped.code, 0, skipped.stdout);
  assertEquals(skipped.json.data.allowIncomplete.bypassed, ["prerequisites"]);

  await readyRequest(ws, "prd", "r1");
  const unneeded = await transition(
    ws,
    "prd",
    "r1",
    "confirmed-by-user",
    "--allow-incomplete",
    "--reason",
    "x",
  );
  assertEquals(unneeded.code, 0);
  assertEquals(
    unneeded.json.data.allowIncomplete,
    undefined,
    "an unused override is not in the envelope",
  );
  assertEquals(unneeded.json.warnings[0].code, "ALLOW_INCOMPLETE_UNUSED");
  const ledger = JSON.parse(
    await Deno.readTextFile(`${dir.path}/.peaks/_runtime/${ws.sid}/request-overrides.json`),
  );
  assertEquals(ledger.entries.length, 1);
});

Deno.test("12 concurrent overrides in one session: exactly 3 pass, the ledger holds exactly 3", async () => {
  await using dir = await tempDir();
  const ws = await workspace(dir.path);
  const rids = Array.from({ length: 12 }, (_, i) => `r${i}`);
  for (const rid of rids) await ws.peaks("request", "init", "--role", "rd", "--id", rid, "--apply");
  const results = await pool(
    rids.length,
    12,
    (i) =>
      transition(ws, "rd", rids[i], "spec-locked", "--allow-incomplete", "--reason", `race ${i}`),
  );
  const passed = results.filter((r) => r.code === 0);
  const refused = results.filter((r) => r.code === 3);
  assertEquals(passed.length, 3);
  assertEquals(refused.length, 9);
  assert(refused.every((r) => r.json.code === "ALLOW_INCOMPLETE_LIMIT"));
  const ledger = JSON.parse(
    await Deno.readTextFile(`${dir.path}/.peaks/_runtime/${ws.sid}/request-overrides.json`),
  );
  assertEquals(ledger.entries.length, 3);
  const list = await ws.peaks("request", "list", "--state", "spec-locked");
  assertEquals(list.json.data.total, 3);
});

Deno.test("24 concurrent identical transitions of one request: one moves it, the rest see it moved", async () => {
  await using dir = await tempDir();
  const ws = await workspace(dir.path);
  await readyRequest(ws, "prd", "r1");
  const results = await pool(24, 24, () => transition(ws, "prd", "r1", "confirmed-by-user"));
  assert(results.every((r) => r.code === 0), results.map((r) => r.stdout).join("\n"));
  assertEquals(results.filter((r) => r.json.data.changed).length, 1);
  const show = await ws.peaks("request", "show", "r1", "--role", "prd");
  assertEquals(show.json.data.history.length, 2);
});
