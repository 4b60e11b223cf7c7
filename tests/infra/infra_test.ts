import { assert, assertEquals, assertMatch, assertRejects, assertThrows } from "@std/assert";
import { clip, redact } from "../../lib/infra/redact.ts";
import { assertId, isoTime, isValidId, newSessionId, printable } from "../../lib/infra/ids.ts";
import { createFileExclusive, writeFileAtomic } from "../../lib/infra/fs/files.ts";
import { guardPath } from "../../lib/infra/fs/guard.ts";
import { withLock } from "../../lib/infra/fs/lock.ts";
import { readValidated, updateJson } from "../../lib/infra/fs/json.ts";
import { PeaksError } from "../../lib/infra/errors.ts";
import { projectLayout } from "../../lib/workspace/paths.ts";
import { shellQuote } from "../../lib/infra/shell.ts";
import { withGitignoreBlock } from "../../lib/workspace/skeleton.ts";
import { contextAction } from "../../lib/presence/caller.ts";
import { z } from "zod";
import { tempDir } from "../support/temp.ts";

Deno.test("the redactor removes every known secret shape", () => {
  const secrets = [
    "Authorization: Bearer abcdefghijklmnop1234",
    "sk-ant-REALLYSECRET1234567890",
    "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
    "AKIAIOSFODNN7EXAMPLE",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
    "api_key=hunter2hunter2",
    "password: 'correct horse'",
  ];
  for (const secret of secrets) {
    const out = redact(`failed with ${secret} here`);
    assertMatch(out, /REDACTED/, secret);
    for (
      const piece of [
        "abcdefghijklmnop1234",
        "REALLYSECRET",
        "abcdefghijklmnopqrstuvwxyz0123456789",
        "IOSFODNN7",
        "dozjgNry",
        "MIIEow",
        "hunter2",
        "correct horse",
      ]
    ) {
      assert(!out.includes(piece), `${piece} leaked from ${secret}: ${out}`);
    }
  }
  assertEquals(redact("plain text stays"), "plain text stays");
});

Deno.test("identifiers: the path-safe pattern and the session id shape", () => {
  for (const good of ["a", "2026-11-29-session-a1b2c3", "rd.planning_1", "A".repeat(128)]) {
    assert(isValidId(good), good);
  }
  for (
    const bad of [
      "",
      ".hidden",
      "-x",
      "a/b",
      "a\\b",
      "a b",
      "a\u0000",
      "..",
      "a..b",
      "A".repeat(129),
      "é",
    ]
  ) {
    assert(!isValidId(bad), JSON.stringify(bad));
  }
  assertThrows(() => assertId("../x", "--rid"), PeaksError);
  assertMatch(newSessionId(new Date("2026-11-29T23:59:00Z")), /^2026-11-29-session-[0-9a-f]{6}$/);
  assertEquals(printable("a\u0001b"), "a\\u0001b");
});

Deno.test("values are redacted before they are cut, and URL credentials are secrets", () => {
  const key = "AKIAIOSFODNN7EXAMPLE";
  // The key straddles the 80-character cut: cutting first would keep "AKIAIOSF".
  const echoed = printable(`${"x".repeat(72)} ${key} tail`);
  assert(!echoed.includes("AKIA"), echoed);
  assert(!clip(`${"y".repeat(74)} ${key}`, 80).includes("AKIA"));
  const url = redact("clone https://alice:s3cret@example.com/repo.git");
  assert(!url.includes("s3cret") && !url.includes("alice"), url);
});

Deno.test("shellQuote leaves safe words alone and quotes the rest", () => {
  assertEquals(shellQuote("/tmp/x-1.json"), "/tmp/x-1.json");
  assertEquals(shellQuote("it's here"), `'it'\\''s here'`);
});

Deno.test("atomic writes replace whole files and leave no temp files", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/sub/file.json`;
  await writeFileAtomic(path, "one");
  await writeFileAtomic(path, "two");
  assertEquals(await Deno.readTextFile(path), "two");
  const names = [...Deno.readDirSync(`${dir.path}/sub`)].map((e) => e.name);
  assertEquals(names, ["file.json"]);
});

Deno.test("exclusive create refuses an existing name and never leaves a partial file", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/record.json`;
  assertEquals(await createFileExclusive(path, "first"), true);
  assertEquals(await createFileExclusive(path, "second"), false);
  assertEquals(await Deno.readTextFile(path), "first");
  assertEquals([...Deno.readDirSync(dir.path)].length, 1);
});

Deno.test("the path guard refuses .., outside absolutes and escaping symlinks", async () => {
  await using root = await tempDir();
  await using outside = await tempDir();
  await Deno.mkdir(`${root.path}/.peaks/_runtime`, { recursive: true });
  await Deno.writeTextFile(`${outside.path}/secret.txt`, "x");
  await Deno.symlink(outside.path, `${root.path}/.peaks/escape`);
  await Deno.mkdir(`${root.path}/inner`);
  await Deno.symlink(`${root.path}/inner`, `${root.path}/.peaks/inner-link`);
  const guard = (raw: string, mustExist = false) =>
    guardPath(root.path, root.path, raw, { flag: "record", mustExist });

  for (
    const raw of [
      "../x",
      ".peaks/../../x",
      `${outside.path}/secret.txt`,
      ".peaks/escape/secret.txt",
      ".peaks/escape/new.json",
    ]
  ) {
    const error = await assertRejects(() => guard(raw), PeaksError);
    assertEquals(error.code, "PATH_OUTSIDE_PROJECT", raw);
    assertEquals(error.exit, 2);
  }
  assertEquals(await guard(".peaks/inner-link/a.json"), `${root.path}/.peaks/inner-link/a.json`);
  assertEquals(await guard(`${root.path}/.peaks/x.json`), `${root.path}/.peaks/x.json`);
  const missing = await assertRejects(() => guard(".peaks/none.json", true), PeaksError);
  assertEquals(missing.code, "FILE_NOT_FOUND");
  const control = await assertRejects(() => guard("a\u0000b"), PeaksError);
  assertEquals(control.code, "INVALID_FLAG_VALUE");
});

Deno.test("a held lock makes the next writer fail with LOCK_TIMEOUT naming the file", async () => {
  await using dir = await tempDir();
  const target = `${dir.path}/state.json`;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let entered!: () => void;
  const inside = new Promise<void>((resolve) => (entered = resolve));
  const holder = withLock(target, async () => {
    entered();
    await held;
  });
  await inside;
  const error = await assertRejects(
    () => withLock(target, () => Promise.resolve(), { timeoutMs: 50 }),
    PeaksError,
  );
  assertEquals(error.code, "LOCK_TIMEOUT");
  assertEquals(error.data.path, target);
  release();
  await holder;
  assertEquals(await withLock(target, () => Promise.resolve(7), { timeoutMs: 1000 }), 7);
});

Deno.test("a queue that keeps moving is waited out, however much longer than the bound it is", async () => {
  await using dir = await tempDir();
  const target = `${dir.path}/state.json`;
  const order: number[] = [];
  // Six writers, each holding the lock for 300 ms with a 400 ms bound: the last waits ~1.5 s.
  const writers = Array.from({ length: 6 }, (_, i) =>
    withLock(target, async () => {
      order.push(i);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }, { timeoutMs: 400 }));
  await Promise.all(writers);
  assertEquals(order.length, 6);
  assertEquals(new Set(order).size, 6);
});

/** Takes the lock on `target` through a handle of its own, as another process would. */
function holdLock(target: string): Deno.FsFile {
  const other = Deno.openSync(`${target}.lock`, { read: true, write: true, create: true });
  other.lockSync(true);
  return other;
}

Deno.test("withLock runs whileBusy only when the lock is taken, outside it, and ignores its errors", async () => {
  await using dir = await tempDir();
  const target = `${dir.path}/state.json`;
  let calls = 0;
  const whileBusy = () => {
    calls++;
    return Promise.resolve();
  };
  assertEquals(await withLock(target, () => Promise.resolve("free"), { whileBusy }), "free");
  assertEquals(calls, 0);

  const other = holdLock(target);
  const ran = await withLock(target, () => Promise.resolve("after"), {
    whileBusy: () => {
      calls++;
      // Still the other handle's: this runs before the caller queues for the lock.
      assertEquals(Deno.openSync(`${target}.lock`, { read: true }).tryLockSync(true), false);
      other.close();
      throw new Error("a failed rehearsal is not the caller's failure");
    },
  });
  assertEquals(ran, "after");
  assertEquals(calls, 1);
});

Deno.test("a pure update is rehearsed while the file is busy and still applied once; others are not rehearsed", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/count.json`;
  const schema = z.object({ n: z.number() });
  await Deno.writeTextFile(path, '{"n":1}\n');

  let other = holdLock(path);
  const seen: number[] = [];
  await updateJson(path, schema, { what: "counter", pure: true }, (cur) => {
    seen.push(cur?.n ?? 0);
    if (seen.length === 1) other.close(); // the rehearsal: the holder lets go after it
    return { value: { n: (cur?.n ?? 0) + 1 }, result: null };
  });
  assertEquals(seen, [1, 1]);
  assertEquals(JSON.parse(await Deno.readTextFile(path)), { n: 2 });

  other = holdLock(path);
  const impure: number[] = [];
  const letGo = new Promise<void>((resolve) => setTimeout(() => resolve(other.close()), 20));
  await updateJson(path, schema, { what: "counter" }, (cur) => {
    impure.push(cur?.n ?? 0);
    return { value: { n: (cur?.n ?? 0) + 1 }, result: null };
  });
  await letGo;
  assertEquals(impure, [2]);
  assertEquals(JSON.parse(await Deno.readTextFile(path)), { n: 3 });
});

Deno.test("schema-checked reads report RECORD_UNREADABLE with a repair command", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/thing.json`;
  const schema = z.object({ n: z.number() });
  assertEquals(await readValidated(path, schema, { what: "thing" }), undefined);
  await Deno.writeTextFile(path, '{"n": 1');
  const truncated = await assertRejects(
    () => readValidated(path, schema, { what: "thing", repair: ["peaks doctor"] }),
    PeaksError,
  );
  assertEquals(truncated.code, "RECORD_UNREADABLE");
  assertEquals(truncated.nextActions, ["peaks doctor"]);
  await Deno.writeTextFile(path, '{"n": "one"}');
  const wrong = await assertRejects(
    () => readValidated(path, schema, { what: "thing" }),
    PeaksError,
  );
  assertMatch(wrong.message, /n: /);
});

Deno.test("updateJson validates before writing and writes nothing on refusal", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/count.json`;
  const schema = z.object({ n: z.number().max(2) });
  for (let i = 0; i < 2; i++) {
    await updateJson(
      path,
      schema,
      { what: "counter" },
      (cur) => ({ value: { n: (cur?.n ?? 0) + 1 }, result: null }),
    );
  }
  assertEquals(JSON.parse(await Deno.readTextFile(path)), { n: 2 });
  await assertRejects(() =>
    updateJson(
      path,
      schema,
      { what: "counter" },
      (cur) => ({ value: { n: (cur?.n ?? 0) + 1 }, result: null }),
    )
  );
  assertEquals(JSON.parse(await Deno.readTextFile(path)), { n: 2 });
});

Deno.test("the layout refuses identifiers that would escape their folder", () => {
  const layout = projectLayout("/p");
  assertThrows(() => layout.sessionDir("../x"), PeaksError);
  assertThrows(() => layout.request("s", "prd", "a/b"), PeaksError);
  assertEquals(layout.presence("s1", "w1"), "/p/.peaks/_runtime/s1/presence/w1.json");
});

Deno.test("the managed .gitignore block is created, refreshed and appended without touching user lines", () => {
  const fresh = withGitignoreBlock(undefined);
  assertEquals(withGitignoreBlock(fresh), fresh);
  const user = "my-notes/\n";
  const appended = withGitignoreBlock(user);
  assert(appended.startsWith(user));
  assertEquals(withGitignoreBlock(appended), appended);
});

Deno.test("context tiers", () => {
  assertEquals(contextAction(undefined), "unknown");
  assertEquals(contextAction(49.9), "ok");
  assertEquals(contextAction(50), "soft-warn");
  assertEquals(contextAction(85), "pre-compact");
  assertEquals(contextAction(95), "red-line");
});

Deno.test("isoTime writes what toISOString writes, across the four-digit years and their edges", () => {
  const edges = [
    0,
    -1,
    1,
    86_399_999,
    86_400_000,
    -62_167_219_200_000, // 0000-01-01T00:00:00.000Z
    253_402_300_799_999, // 9999-12-31T23:59:59.999Z
    Date.UTC(2000, 1, 29, 23, 59, 59, 999),
    Date.UTC(1900, 2, 1),
    Date.UTC(2100, 1, 28, 12),
    Date.UTC(1969, 11, 31, 23, 59, 59, 999),
  ];
  // A fixed pseudo-random walk over the whole range (same values every run).
  let seed = 20261202;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  const span = 253_402_300_799_999 + 62_167_219_200_000;
  const sweep = Array.from(
    { length: 20_000 },
    () => Math.floor(next() * span) - 62_167_219_200_000,
  );
  for (const ms of [...edges, ...sweep]) {
    const date = new Date(ms);
    assertEquals(isoTime(date), date.toISOString(), String(ms));
  }
  // Outside the four-digit years it is toISOString itself: extended years, and a RangeError.
  assertEquals(isoTime(new Date(8.64e15)), "+275760-09-13T00:00:00.000Z");
  assertThrows(() => isoTime(new Date(NaN)), RangeError);
});
