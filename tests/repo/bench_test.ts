/**
 * Smoke test of `deno task bench`: a quick run with --compare writes the JSON
 * and Markdown report with one column per target, and a compared CLI that
 * fails shows "failed" in its column without stopping the run. Timings are
 * never asserted, only that they are there.
 */
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { commandLine } from "../../lib/infra/shell.ts";
import { cacheDir, CONFIG, ENTRY, REPO } from "../support/cli.ts";
import { tempDir } from "../support/temp.ts";

async function bench(args: string[], home: string) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "-A", "--config", CONFIG, join(REPO, "bench", "run.ts"), ...args],
    cwd: REPO,
    env: { HOME: home, PATH: Deno.env.get("PATH") ?? "", DENO_DIR: await cacheDir() },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

const QUICK = ["--quick", "--no-demo", "--no-concurrency"];

Deno.test({
  name: "bench --compare runs every scenario against both CLIs and reports both columns",
  sanitizeResources: false,
  async fn() {
    await using dir = await tempDir();
    const out = join(dir.path, "results");
    // The same peaks through another prefix: without --frozen/--cached-only.
    const second = [Deno.execPath(), "run", "-q", "-P=peaks", "--config", CONFIG, ENTRY];
    const result = await bench(
      [...QUICK, "--only", "version,status", "--compare", commandLine(second), "--out", out],
      dir.path,
    );
    assertEquals(result.code, 0, result.stderr);
    const report = JSON.parse(await Deno.readTextFile(join(out, "latest.json")));
    assertEquals(report.targets.map((t: { label: string }) => t.label), ["peaks", "compared"]);
    assertEquals(report.targets[1].argv, second);
    assertEquals(report.scenarios.map((s: { name: string }) => s.name), ["version", "status"]);
    for (const row of report.scenarios) {
      assertEquals(row.results.map((r: { target: string }) => r.target), ["peaks", "compared"]);
      for (const r of row.results) {
        assertEquals([r.status, r.failures, r.runs], ["ok", 0, 3], JSON.stringify(r));
        for (const key of ["medianMs", "p95Ms", "minMs", "maxMs"]) {
          assert(typeof r[key] === "number" && r[key] > 0, `${key} of ${JSON.stringify(r)}`);
        }
      }
    }
    assertEquals(report.references.map((r: { shown: string }) => r.shown), [
      "node -e 0",
      "deno run (empty file)",
    ]);
    assertEquals(report.concurrency, null);
    assertEquals(report.demo, null);
    // Envelopes: both targets measured, and the pointer envelope stays under 1 KB.
    for (const size of report.envelopes) {
      assertEquals(size.results.length, 2);
      for (const r of size.results) assert(typeof r.bytes === "number" && r.bytes > 0);
    }
    const pointer = report.envelopes.find((s: { name: string }) =>
      s.name === "dispatch-pointer-100k"
    );
    assert(
      pointer.results.every((r: { bytes: number }) => r.bytes < 1024),
      JSON.stringify(pointer),
    );

    const markdown = await Deno.readTextFile(join(out, "latest.md"));
    assertEquals(result.stdout.trim(), markdown.trim());
    assertStringIncludes(markdown, "| command | peaks median ms |");
    assertStringIncludes(markdown, "| compared median ms |");
    assertStringIncludes(markdown, "| call | peaks bytes | compared bytes |");
    const files = [];
    for await (const entry of Deno.readDir(out)) files.push(entry.name);
    assertEquals(files.filter((f) => f.endsWith(".json")).length, 2, files.join(", "));
    assertEquals(files.filter((f) => f.endsWith(".md")).length, 2, files.join(", "));
  },
});

Deno.test({
  name: "bench --compare with a CLI that fails shows failed in its column and finishes",
  sanitizeResources: false,
  async fn() {
    await using dir = await tempDir();
    const out = join(dir.path, "results");
    const failing = join(dir.path, "failing.ts");
    await Deno.writeTextFile(failing, 'console.error("no such command"); Deno.exit(4);\n');
    const result = await bench(
      [
        ...QUICK,
        "--no-envelopes",
        "--only",
        "version,session-info",
        "--compare",
        commandLine([Deno.execPath(), "run", "-q", failing]),
        "--compare-label",
        "broken",
        "--out",
        out,
      ],
      dir.path,
    );
    assertEquals(result.code, 0, result.stderr);
    const report = JSON.parse(await Deno.readTextFile(join(out, "latest.json")));
    const [version, info] = report.scenarios;
    assertEquals(version.results.map((r: { status: string }) => r.status), ["ok", "failed"]);
    assertEquals(version.results[1].failures, 3);
    assertStringIncludes(version.results[1].failure, "no such command");
    // session info needs a workspace: the broken CLI already fails while preparing it.
    assertEquals(info.results.map((r: { status: string }) => r.status), ["ok", "failed"]);
    assertStringIncludes(info.results[1].failure, "setup:");
    assertEquals(info.results[1].medianMs, null);
    const markdown = await Deno.readTextFile(join(out, "latest.md"));
    assertStringIncludes(markdown, "| broken median ms |");
    assertStringIncludes(markdown, "| failed |");
  },
});
