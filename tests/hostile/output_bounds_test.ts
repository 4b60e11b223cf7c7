/**
 * Envelopes have a bound: a record with 2 000 registered artefacts must not
 * turn `list --json` or `finalize --batch` into hundreds of kilobytes on an
 * LLM's context, and a long list pages.
 */
import { assert, assertEquals } from "@std/assert";
import { ARTIFACT_STATES } from "../../lib/state/record.ts";
import { runPeaks } from "../support/cli.ts";
import { envFor, type Fixture, freshFixture } from "./fixture.ts";
import { editJson, recordAbs } from "./model.ts";

/** Far below the 408 KB and 722 KB these calls printed before they were bounded. */
const ENVELOPE_MAX = 64 * 1024;

function metas(count: number) {
  return Array.from({ length: count }, (_, i) => ({
    path: `.peaks/_runtime/s/rd/artifacts/part-${String(i).padStart(4, "0")}.md`,
    size: 100,
    sha256: "0".repeat(64),
    status: ARTIFACT_STATES[0],
    summary: `part ${i} of a long report, with a summary of reasonable length`,
    writtenAt: "2026-11-29T10:00:00.000Z",
    rid: "r1",
    role: "rd",
    idx: i + 1,
  }));
}

const peaks = (fx: Fixture, ...args: string[]) =>
  runPeaks([...args, "--json", "--project", fx.root], { cwd: fx.root, env: envFor(fx) });

Deno.test("2 000 artefact metas: list and finalize --batch stay within the envelope bound", async () => {
  await using fx = await freshFixture();
  await editJson(recordAbs(fx), (record) => {
    record.artifactMetas = metas(2_000);
  });
  const list = await peaks(fx, "sub-agent", "list");
  assertEquals(list.code, 0, list.stdout);
  assert(list.stdout.length < ENVELOPE_MAX, `list printed ${list.stdout.length} bytes`);
  const row = list.json.data.records[0];
  assertEquals(row.artifactCount, 2_000);
  assert(row.artifactMetas.length <= 10);

  const finalize = await peaks(
    fx,
    "sub-agent",
    "finalize",
    "--batch",
    fx.batch,
    "--outcome",
    "done",
  );
  assert(finalize.code <= 1, finalize.stdout.slice(0, 400));
  assert(finalize.stdout.length < ENVELOPE_MAX, `finalize printed ${finalize.stdout.length} bytes`);
});

Deno.test("list pages: --offset continues where --limit stopped, and says how", async () => {
  await using fx = await freshFixture();
  for (let i = 0; i < 3; i++) {
    const out = await peaks(
      fx,
      "sub-agent",
      "dispatch",
      "qa",
      "--batch-id",
      fx.batch,
      "--prompt",
      "go",
    );
    assertEquals(out.code, 0, out.stdout);
  }
  const first = await peaks(fx, "sub-agent", "list", "--limit", "2");
  assertEquals(first.json.data.total, 4);
  assertEquals(first.json.data.records.length, 2);
  assertEquals(first.json.data.nextOffset, 2);
  assert(first.json.nextActions.some((a: string) => a.includes("--offset 2")));
  const second = await peaks(fx, "sub-agent", "list", "--limit", "2", "--offset", "2");
  assertEquals(second.json.data.records.length, 2);
  assertEquals(second.json.data.nextOffset, null);
  const seen = [...first.json.data.records, ...second.json.data.records].map((r: {
    recordPath: string;
  }) => r.recordPath);
  assertEquals(new Set(seen).size, 4);
});
