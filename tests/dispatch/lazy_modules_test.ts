/**
 * What a single dispatch loads before it runs: the readers of files a dispatch
 * usually does not find (the request file, the scan result, the preferences)
 * and the record listing of the live-copy check load only when they are
 * needed, and the behaviour they guard stays the same with them lazy.
 */
import { assert, assertEquals } from "@std/assert";
import { readImportGraph, staticClosure } from "../support/import_graph.ts";
import { REPO } from "../support/cli.ts";
import { tempDir } from "../support/temp.ts";
import { join } from "../../lib/infra/std.ts";
import { whenPresent } from "../../lib/infra/fs/files.ts";

const LAZY = [
  "lib/request/file.ts",
  "lib/scan/result.ts",
  "lib/preferences/preferences.ts",
  "lib/record/record.ts",
  "lib/dispatch/live_check.ts",
];

Deno.test("a single dispatch statically loads no request, scan, preferences or record-list reader", () => {
  const graph = readImportGraph(REPO.replace(/\/$/, ""));
  const reached = staticClosure(graph, "lib/commands/sub-agent/dispatch.ts");
  assert(reached.has("lib/dispatch/runtime_args.ts"), "the dispatch graph was read");
  assertEquals(LAZY.filter((file) => reached.has(file)), []);
  // Each of them is still there, behind a dynamic import.
  const dynamic = new Set(graph.edges.filter((e) => e.dynamic).map((e) => e.to));
  for (const file of LAZY.filter((f) => f !== "lib/record/record.ts")) {
    assert(dynamic.has(file), `${file} is imported lazily`);
  }
});

Deno.test("whenPresent skips the reader for a missing file and runs it otherwise", async () => {
  await using dir = await tempDir();
  let calls = 0;
  const read = () => Promise.resolve(++calls);
  assertEquals(await whenPresent(join(dir.path, "missing.json"), read), undefined);
  assertEquals(calls, 0);
  await Deno.writeTextFile(join(dir.path, "there.json"), "{}");
  assertEquals(await whenPresent(join(dir.path, "there.json"), read), 1);
});

Deno.test("whenPresent refuses a linked state folder as the readers do, file or no file", async () => {
  await using dir = await tempDir();
  const outside = join(dir.path, "outside");
  await Deno.mkdir(outside);
  await Deno.mkdir(join(dir.path, ".peaks"));
  await Deno.symlink(outside, join(dir.path, ".peaks", "_runtime"));
  const path = join(dir.path, ".peaks", "_runtime", "sid", "missing.json");
  let refused: unknown;
  await whenPresent(path, () => Promise.resolve(1)).catch((error) => refused = error);
  assertEquals((refused as { code?: string })?.code, "SYMLINK_REFUSED");
});
