import { assertEquals } from "@std/assert";
import { readProjectText, walkProject } from "../../lib/scan/walk.ts";
import { tempDir, writeText } from "../support/temp.ts";

Deno.test("the walk skips dependency, build and peaks folders and sorts breadth-first", async () => {
  await using dir = await tempDir();
  for (
    const rel of [
      "package.json",
      "src/b.ts",
      "src/a.ts",
      "src/deep/c.ts",
      "node_modules/react/index.js",
      ".git/HEAD",
      "dist/bundle.js",
      ".peaks/project-scan/project-scan.md",
      "build/out.js",
    ]
  ) await writeText(`${dir.path}/${rel}`, "x");
  const walk = await walkProject(dir.path);
  assertEquals(walk.files, ["package.json", "src/a.ts", "src/b.ts", "src/deep/c.ts"]);
  assertEquals(walk.truncated, false);
  assertEquals(walk.truncatedBy, null);
});

Deno.test("the walk stops at --max-files and says so", async () => {
  await using dir = await tempDir();
  for (let i = 0; i < 30; i++) {
    await writeText(`${dir.path}/src/f${String(i).padStart(2, "0")}.ts`, "x");
  }
  await writeText(`${dir.path}/package.json`, "{}");
  const walk = await walkProject(dir.path, { maxFiles: 10 });
  assertEquals(walk.files.length, 10);
  assertEquals(walk.files[0], "package.json", "files near the root come first");
  assertEquals(walk.truncated, true);
  assertEquals(walk.truncatedBy, "files");
});

Deno.test("the walk does not descend past --max-depth and reports it", async () => {
  await using dir = await tempDir();
  await writeText(`${dir.path}/a/b/c/d/e.ts`, "x");
  await writeText(`${dir.path}/a/top.ts`, "x");
  const walk = await walkProject(dir.path, { maxDepth: 2 });
  assertEquals(walk.files, ["a/top.ts"]);
  assertEquals(walk.truncatedBy, "depth");
});

Deno.test("the walk never follows a symlink out of the project", async () => {
  await using outside = await tempDir();
  await using dir = await tempDir();
  await writeText(`${outside.path}/secret/package.json`, '{"dependencies":{"antd":"4"}}');
  await writeText(`${dir.path}/src/index.ts`, "x");
  await Deno.symlink(`${outside.path}/secret`, `${dir.path}/linked`);
  await Deno.symlink(`${outside.path}/secret/package.json`, `${dir.path}/package.json`);
  const walk = await walkProject(dir.path);
  assertEquals(walk.files, ["src/index.ts"]);
  assertEquals(walk.symlinksSkipped, 2);
  assertEquals(await readProjectText(dir.path, "package.json"), undefined);
  assertEquals(await readProjectText(dir.path, "src/index.ts"), "x");
});

Deno.test("readProjectText reads at most the byte cap", async () => {
  await using dir = await tempDir();
  await writeText(`${dir.path}/big.txt`, "a".repeat(5000));
  const text = await readProjectText(dir.path, "big.txt", 100);
  assertEquals(text?.length, 100);
});
