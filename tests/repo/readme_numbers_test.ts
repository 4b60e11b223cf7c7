/**
 * Performance numbers have one source, docs/performance.md (the bench's report with its machine
 * and date); the README links to it and quotes no times of its own.
 */
import { assert, assertMatch, assertStringIncludes } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { REPO } from "../support/cli.ts";

Deno.test("the README quotes no timings and links the bench report instead", async () => {
  const readme = await Deno.readTextFile(join(REPO, "README.md"));
  const section = readme.slice(
    readme.indexOf("## Performance"),
    readme.indexOf("## Documentation"),
  );
  assertStringIncludes(section, "[docs/performance.md](docs/performance.md)");
  assertStringIncludes(section, "deno task bench");
  for (const match of readme.matchAll(/\b\d+(\.\d+)?\s?(ms|MiB|MB)\b|calls in \d/g)) {
    assert(false, `the README quotes a measurement: ${match[0]}`);
  }
});

Deno.test("the performance report names its machine, its load and its date", async () => {
  const doc = await Deno.readTextFile(join(REPO, "docs", "performance.md"));
  const results = doc.slice(doc.indexOf("## Results"));
  assertMatch(results, /Measured \d{4}-\d\d-\d\dT[\d:.]+Z on \S+ .*\d+ cores/);
  assertMatch(results, /load average/);
});
