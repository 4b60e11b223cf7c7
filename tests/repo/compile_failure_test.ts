import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { cleanOutput, explainCompileFailure } from "../../release/compile_failure.ts";
import { compileArgs } from "../../release/compile.ts";
import { installArgs } from "../../release/install_clone.ts";
import { V8_FLAGS } from "../../lib/infra/command/build.ts";
import { peaksArgs } from "../support/cli.ts";
import { join } from "../../lib/infra/std.ts";
import { REPO_ROOT } from "../../release/package.ts";
import { readImportGraph } from "../support/import_graph.ts";

const DOWNLOAD_FAILURE =
  `\x1b[0m\x1b[1m\x1b[31merror\x1b[0m: Writing deno compile executable to temporary file 'peaks.tmp-1'

Caused by:
    0: Setting up base binary.
    1: error sending request for url (https://dl.deno.land/release/v2.9.6/denort-aarch64-apple-darwin.zip): client error (Connect)
    2: client error (Connect)
    3: dns error
    4: failed to lookup address information: Name or service not known

Stack backtrace:
   0: <unknown>
`;

const base = { target: "aarch64-apple-darwin", denoVersion: "2.9.6", denoDir: "/cache/deno" };

Deno.test("a failed runtime download becomes an explanation with the offline recipes", () => {
  const text = explainCompileFailure({
    ...base,
    output: DOWNLOAD_FAILURE,
    missingRuntimes: ["aarch64-apple-darwin", "x86_64-pc-windows-msvc"],
  });
  assertStringIncludes(text, "could not get Deno's runtime for aarch64-apple-darwin.");
  assertStringIncludes(
    text,
    "The download failed: failed to lookup address information: Name or service not known.",
  );
  for (const target of ["aarch64-apple-darwin", "x86_64-pc-windows-msvc"]) {
    assertStringIncludes(
      text,
      join("/cache/deno", "dl", "release", "v2.9.6", `denort-${target}.zip`),
    );
  }
  assertStringIncludes(text, "DENORT_BIN");
  assertEquals(text.includes("backtrace"), false);
});

Deno.test("other compile errors pass through without colours or the backtrace", () => {
  const output = "\x1b[31mTS2322 [ERROR]\x1b[0m: Type 'string' is not assignable\n\n" +
    "Stack backtrace:\n   0: <unknown>\n";
  assertEquals(cleanOutput(output), "TS2322 [ERROR]: Type 'string' is not assignable");
  assertEquals(
    explainCompileFailure({ ...base, output }),
    "deno compile failed for aarch64-apple-darwin:\nTS2322 [ERROR]: Type 'string' is not assignable",
  );
});

Deno.test("the compile command uses exactly the peaks permission set and embeds skills/", () => {
  const args = compileArgs("x86_64-pc-windows-msvc", "out/peaks.exe");
  assertEquals(args.filter((a) => /^-(A|-allow-|P)/.test(a)), ["-P=peaks"]);
  for (const flag of ["--no-prompt", "--frozen"]) assertEquals(args.includes(flag), true, flag);
  assertEquals(args.slice(args.indexOf("--include"), args.indexOf("--include") + 2), [
    "--include",
    "skills",
  ]);
  assertEquals(args.at(-1), "peaks.ts");
});

Deno.test("the binary, the tests, the bench, the clone install and the task share the V8 flags", async () => {
  // Whole modules in the code cache: a lazily compiled function is compiled again by every call.
  assertStringIncludes(V8_FLAGS, "--no-lazy");
  assert(compileArgs("x86_64-unknown-linux-gnu", "out/peaks").includes(V8_FLAGS));
  assert(peaksArgs([]).includes(V8_FLAGS));
  assert((await installArgs()).includes(V8_FLAGS));
  const config = JSON.parse(await Deno.readTextFile(join(REPO_ROOT, "deno.json")));
  assertStringIncludes(config.tasks.peaks, ` ${V8_FLAGS} `);
  assertStringIncludes(
    await Deno.readTextFile(join(REPO_ROOT, "lib", "cli", "runtime.ts")),
    '"-P=peaks", V8_FLAGS,',
  );
});

Deno.test("every module loaded by a lazy import is a root of the compiled binary", () => {
  const args = compileArgs("x86_64-unknown-linux-gnu", "out/peaks");
  const roots = new Set(args.flatMap((a, i) => args[i - 1] === "--include" ? [a] : []));
  const graph = readImportGraph(REPO_ROOT);
  const lazy = graph.edges.filter((e) => e.dynamic).map((e) => e.to);
  assert(lazy.length > 60, `only ${lazy.length} lazy imports found`);
  for (const module of lazy) assert(roots.has(module), `${module} is not embedded`);
  for (const bare of graph.bare.filter((b) => b.dynamic && !b.specifier.startsWith("node:"))) {
    assert([...roots].some((r) => r.startsWith(`npm:${bare.specifier}@`)), bare.specifier);
  }
});
