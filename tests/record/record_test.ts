import {
  assert,
  assertEquals,
  assertMatch,
  assertNotEquals,
  assertRejects,
  assertThrows,
} from "@std/assert";
import { parseRecord } from "../../lib/record/record.ts";
import { migrateRecord } from "../../lib/state/record.ts";
import { isRecordFileName, RECORD_VERSION } from "../../lib/state/record.ts";
import { assertRole, recordFileName, roleFileName } from "../../lib/record/names.ts";
import { ID_PATTERN } from "../../lib/infra/ids.ts";
import { PeaksError } from "../../lib/infra/errors.ts";
import { makeRecord } from "../support/subagent.ts";

Deno.test("an unversioned record of the earlier format is migrated with fresh-record defaults", async () => {
  const legacy = {
    role: "rd",
    rid: "001-login",
    sessionId: "2026-11-29-session-a1b2c3",
    batchId: "b1",
    dispatchedInBatch: 2,
    ide: "claude-code",
    prompt: "héllo",
    status: "done",
    dispatchedAt: "2026-11-29T10:00:00.000Z",
    heartbeats: [{
      at: "2026-11-29T10:00:10.000Z",
      status: "done",
      progress: 100,
      note: null,
      stage: null,
    }],
    lastBeatAt: "2026-11-29T10:00:10.000Z",
  };
  const record = await parseRecord("/x/dispatch-a.json", legacy);
  assertEquals(record.version, RECORD_VERSION);
  assertEquals(record.requestId, "001-login");
  assertEquals(record.createdAt, "2026-11-29T10:00:00.000Z");
  assertEquals(record.outcome, "done");
  assertEquals(record.promptSize, 6);
  assertEquals(record.artifactMetas, []);
  assertEquals(record.heartbeats.length, 1);
  assertEquals(record.disposed, false);
});

Deno.test("a record from a newer peaks is RECORD_UNREADABLE with a repair command", async () => {
  const record = { ...makeRecord({ sessionId: "s", role: "rd", batchId: "b", n: 1 }), version: 7 };
  const error = await assertRejects(() => parseRecord("/p/dispatch-x.json", record), PeaksError);
  assertEquals(error.code, "RECORD_UNREADABLE");
  assertMatch(error.message, /unsupported record version/);
  assertEquals(error.nextActions, ["mv /p/dispatch-x.json /p/dispatch-x.json.corrupt"]);
});

Deno.test("migration leaves current records and non-objects untouched", () => {
  const record = makeRecord({ sessionId: "s", role: "rd", batchId: "b", n: 1 });
  assertEquals(migrateRecord(record), record);
  assertEquals(migrateRecord("text"), "text");
});

Deno.test("unknown fields of a current record survive parsing", async () => {
  const record = { ...makeRecord({ sessionId: "s", role: "rd", batchId: "b", n: 1 }), pid: 42 };
  assertEquals(
    (await parseRecord("/p/dispatch-x.json", record) as Record<string, unknown>).pid,
    42,
  );
});

Deno.test("roles: 1-256 characters, no whitespace, no control characters", () => {
  assertEquals(assertRole("qa-business-api"), "qa-business-api");
  assertEquals(assertRole("设计师"), "设计师");
  assertEquals(assertRole("r".repeat(256)).length, 256);
  for (const bad of ["", "rd planning", "rd\tx", "rd\u0007", "r".repeat(257), "a\u00a0b"]) {
    assertEquals(assertThrows(() => assertRole(bad), PeaksError).code, "INVALID_ROLE", bad);
  }
});

Deno.test("a role that is a safe identifier names files as is; others become slug + hash", () => {
  assertEquals(roleFileName("rd-planning"), "rd-planning");
  const odd = roleFileName("UI/Design:设计");
  assertMatch(odd, ID_PATTERN);
  assertMatch(odd, /^ui-design-[0-9a-f]{8}$/);
  assertNotEquals(roleFileName("UI/Design"), roleFileName("UI:Design"));
  const long = roleFileName("x".repeat(200));
  assert(long.length <= 64, long);
  assertMatch(long, ID_PATTERN);
  assertMatch(roleFileName("设计"), /^role-[0-9a-f]{8}$/);
});

Deno.test("record file names follow dispatch-<rid>-<role>-<ts>-<rand4>.json", () => {
  const at = new Date("2026-11-29T21:19:00.123Z");
  const name = recordFileName("001-login", "rd", at);
  assertMatch(name, /^dispatch-001-login-rd-[0-9a-z]{8}-[0-9a-f]{4}\.json$/);
  assertEquals(parseInt(name.split("-")[4], 36), at.getTime());
  const later = recordFileName("001-login", "rd", new Date(at.getTime() + 1));
  assert(later.slice(0, 30) > name.slice(0, 30), "names sort by time");
  assert(isRecordFileName(name));
  const longest = recordFileName("r".repeat(128), "x".repeat(256), new Date());
  assert(longest.length < 255 && isRecordFileName(longest), longest);
  assert(!isRecordFileName("dispatch-../x.json"));
  assert(!isRecordFileName("batch-1.json"));
});
