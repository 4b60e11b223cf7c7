/**
 * The archive writers and the packaging step: archives are read back with the
 * system's tar/unzip where present and with a small zip reader here, so a
 * wrong header fails even on a machine without unzip.
 */
import { assert, assertEquals, assertRejects, assertStringIncludes } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { VERSION } from "../../lib/infra/command/build.ts";
import { crc32, tarGz, zip } from "../../release/archive.ts";
import { packageTarget, projectVersion, sha256Hex, writeChecksums } from "../../release/package.ts";
import { ReleaseError } from "../../release/errors.ts";
import { archiveName, TARGETS } from "../../release/targets.ts";
import { FIXED_TIME, fixtureRoot, standInScript, which } from "../support/release.ts";
import { exists, tempDir } from "../support/temp.ts";
import { REPO } from "../support/cli.ts";

const posix = Deno.build.os !== "windows";
const text = (s: string) => new TextEncoder().encode(s);
/** Over 100 bytes in one segment: needs a pax header. */
const LONG = "skills/peaks-code/references/" + "a-rather-long-reference-name-".repeat(4) + "end.md";
/** Over 100 bytes in all, short segments: fits ustar's prefix field. */
const DEEP = "skills/" + "nested-folder-name/".repeat(7) + "file.md";

const ENTRIES = [
  { path: "peaks", data: text("#!/bin/sh\necho hi\n"), mode: 0o755 },
  { path: "LICENSE", data: text("MIT\n"), mode: 0o644 },
  { path: "skills/", mode: 0o755 },
  { path: "skills/peaks-code/", mode: 0o755 },
  { path: "skills/peaks-code/SKILL.md", data: text("# skill\n".repeat(500)), mode: 0o644 },
  { path: LONG, data: text("long\n"), mode: 0o644 },
  { path: DEEP, data: text("deep\n"), mode: 0o644 },
];

async function run(cmd: string, args: string[], cwd?: string) {
  const out = await new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" }).output();
  return { code: out.code, stdout: new TextDecoder().decode(out.stdout) };
}

/** Reads a zip's central directory and inflates every entry. */
async function readZip(bytes: Uint8Array) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = bytes.length - 22;
  assertEquals(view.getUint32(end, true), 0x06054b50);
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const files: Record<string, { data: Uint8Array; mode: number }> = {};
  for (let i = 0; i < count; i++) {
    assertEquals(view.getUint32(at, true), 0x02014b50);
    const method = view.getUint16(at + 10, true);
    const crc = view.getUint32(at + 16, true);
    const size = view.getUint32(at + 20, true);
    const nameLength = view.getUint16(at + 28, true);
    const mode = view.getUint32(at + 38, true) >>> 16;
    const local = view.getUint32(at + 42, true);
    const name = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength));
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    const raw = bytes.subarray(start, start + size);
    const data = method === 8
      ? new Uint8Array(
        await new Response(
          new Blob([raw.slice()]).stream().pipeThrough(new DecompressionStream("deflate-raw")),
        ).arrayBuffer(),
      )
      : raw;
    assertEquals(crc32(data), crc, name);
    files[name] = { data, mode: mode & 0o7777 };
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return files;
}

Deno.test("crc32 matches the standard check value", () => {
  assertEquals(crc32(text("123456789")), 0xcbf43926);
});

Deno.test({
  name: "tarGz writes a tar.gz that the system tar unpacks with contents and modes",
  ignore: !posix,
  async fn() {
    await using dir = await tempDir();
    await Deno.writeFile(join(dir.path, "a.tar.gz"), await tarGz(ENTRIES, FIXED_TIME));
    await Deno.mkdir(join(dir.path, "out"));
    assertEquals((await run("tar", ["-xzf", "../a.tar.gz"], join(dir.path, "out"))).code, 0);
    for (const entry of ENTRIES.filter((e) => e.data)) {
      const path = join(dir.path, "out", entry.path);
      assertEquals(await Deno.readFile(path), entry.data, entry.path);
      assertEquals((await Deno.stat(path)).mode! & 0o777, entry.mode, entry.path);
      assertEquals((await Deno.stat(path)).mtime?.getTime(), FIXED_TIME.getTime());
    }
  },
});

Deno.test("zip writes deflated entries with CRCs and unix modes; unzip agrees", async () => {
  const bytes = await zip(ENTRIES, FIXED_TIME);
  const files = await readZip(bytes);
  assertEquals(Object.keys(files), ENTRIES.map((e) => e.path));
  for (const entry of ENTRIES) {
    if (entry.data) assertEquals(files[entry.path].data, entry.data);
    assertEquals(files[entry.path].mode, entry.mode, entry.path);
  }
  if (posix && await which("unzip")) {
    await using dir = await tempDir();
    await Deno.writeFile(join(dir.path, "a.zip"), bytes);
    const tested = await run("unzip", ["-t", join(dir.path, "a.zip")]);
    assertEquals(tested.code, 0, tested.stdout);
  }
});

Deno.test("archive writers refuse paths that would escape the extraction directory", async () => {
  for (const path of ["../evil", "/etc/passwd", "skills/../../x", "a//b"]) {
    await assertRejects(() => tarGz([{ path, data: text("x"), mode: 0o644 }], FIXED_TIME));
    await assertRejects(() => zip([{ path, data: text("x"), mode: 0o644 }], FIXED_TIME));
  }
});

Deno.test("the same inputs and timestamp give byte-identical archives", async () => {
  assertEquals(await tarGz(ENTRIES, FIXED_TIME), await tarGz(ENTRIES, FIXED_TIME));
  assertEquals(await zip(ENTRIES, FIXED_TIME), await zip(ENTRIES, FIXED_TIME));
});

/** Every file under the repository's extensions/, archive-relative, sorted. */
async function extensionFiles(dir = join(REPO, "extensions"), prefix = "extensions/") {
  const out: string[] = [];
  const children = await Array.fromAsync(Deno.readDir(dir));
  for (const child of children.toSorted((a, b) => a.name < b.name ? -1 : 1)) {
    if (child.isDirectory) {
      out.push(`${prefix}${child.name}/`);
      out.push(...await extensionFiles(join(dir, child.name), `${prefix}${child.name}/`));
    } else out.push(`${prefix}${child.name}`);
  }
  return out;
}

Deno.test("packageTarget ships the binary, the license files, the skills tree, the plugin manifests and hooks, and every host package", async () => {
  await using dir = await tempDir();
  const root = await fixtureRoot(dir.path, {
    "peaks-code/SKILL.md": "skill\n",
    "peaks-code/references/runbook.md": "runbook\n",
    ".gitkeep": "",
  });
  const binary = join(dir.path, "peaks-bin");
  await Deno.writeTextFile(binary, standInScript("2.0.0"));
  const out = join(dir.path, "dist");
  const target = "x86_64-pc-windows-msvc";
  const archive = await packageTarget({ binary, target, version: "2.0.0", outDir: out, root });
  assertEquals(archive.name, "peaks-2.0.0-x86_64-pc-windows-msvc.zip");
  const bytes = await Deno.readFile(archive.path);
  assertEquals(archive.sha256, await sha256Hex(bytes));
  const files = await readZip(bytes);
  assertEquals(Object.keys(files), [
    "peaks.exe",
    "LICENSE",
    "README.md",
    "THIRD_PARTY_LICENSES.md",
    "skills/",
    "skills/peaks-code/",
    "skills/peaks-code/SKILL.md",
    "skills/peaks-code/references/",
    "skills/peaks-code/references/runbook.md",
    ".claude-plugin/",
    ".claude-plugin/plugin.json",
    ".claude-plugin/marketplace.json",
    ".claude-plugin/icon.png",
    "hooks/",
    "hooks/hooks.json",
    "extensions/",
    ...await extensionFiles(),
  ]);
  for (const file of [".claude-plugin/plugin.json", "hooks/hooks.json"]) {
    assertEquals(files[file].data, await Deno.readFile(join(REPO, file)), file);
  }
  for (const path of await extensionFiles()) {
    if (path.endsWith("/")) continue;
    assertEquals(files[path].data, await Deno.readFile(join(REPO, path)), path);
    assertEquals(files[path].mode, 0o644, path);
  }
  for (
    const manifest of [
      "extensions/gemini/gemini-extension.json",
      "extensions/qwen/qwen-extension.json",
      "extensions/codex/.codex-plugin/plugin.json",
      "extensions/codex/.agents/plugins/marketplace.json",
      "extensions/copilot/plugin.json",
      "extensions/copilot/.github/plugin/marketplace.json",
    ]
  ) assert(files[manifest], `${manifest} is not in the archive`);
  assertEquals(files["peaks.exe"].mode, 0o755);
  assertEquals(new TextDecoder().decode(files["peaks.exe"].data), standInScript("2.0.0"));
  assertStringIncludes(
    new TextDecoder().decode(files["THIRD_PARTY_LICENSES.md"].data),
    "headroom-ai",
  );
});

Deno.test("packaging names what is missing instead of writing a partial archive", async () => {
  await using dir = await tempDir();
  const root = await fixtureRoot(dir.path, {});
  const binary = join(dir.path, "peaks-bin");
  await Deno.writeTextFile(binary, "x");
  const out = join(dir.path, "dist");
  const options = { binary, target: "x86_64-unknown-linux-gnu" as const, version: "2.0.0", root };
  await Deno.remove(join(root, "README.md"));
  const error = await assertRejects(() => packageTarget({ ...options, outDir: out }), ReleaseError);
  assertStringIncludes(error.message, "README.md is missing");
  await assertRejects(
    () => packageTarget({ ...options, binary: join(dir.path, "nope"), outDir: out }),
    ReleaseError,
    "The executable is missing",
  );
  await Deno.writeTextFile(join(root, "README.md"), "# peaks\n");
  await Deno.rename(join(root, "extensions"), join(root, "extensions-away"));
  const noPackages = await assertRejects(
    () => packageTarget({ ...options, outDir: out }),
    ReleaseError,
  );
  assertStringIncludes(noPackages.message, "extensions/ is missing");
  await Deno.rename(join(root, "extensions-away"), join(root, "extensions"));
  await Deno.remove(join(root, "hooks", "hooks.json"));
  const noHooks = await assertRejects(
    () => packageTarget({ ...options, outDir: out }),
    ReleaseError,
  );
  assertStringIncludes(noHooks.message, "hooks/hooks.json is missing");
  await Deno.copyFile(join(REPO, "hooks", "hooks.json"), join(root, "hooks", "hooks.json"));
  if (posix) {
    await Deno.symlink("/etc/hostname", join(root, "skills", "linked.md"));
    await assertRejects(
      () => packageTarget({ ...options, outDir: out }),
      ReleaseError,
      "symbolic link",
    );
  }
  assertEquals(await exists(join(out, archiveName("2.0.0", options.target))), false);
});

Deno.test("SHA256SUMS lists this version's archives in the format sha256sum -c reads", async () => {
  await using dir = await tempDir();
  const root = await fixtureRoot(dir.path, {});
  const binary = join(dir.path, "peaks-bin");
  await Deno.writeTextFile(binary, standInScript("2.0.0"));
  const out = join(dir.path, "dist");
  for (const target of ["x86_64-unknown-linux-gnu", "aarch64-pc-windows-msvc"] as const) {
    await packageTarget({ binary, target, version: "2.0.0", outDir: out, root });
  }
  await packageTarget({ binary, target: TARGETS[0], version: "1.9.0", outDir: out, root });
  const sums = await Deno.readTextFile(await writeChecksums(out, "2.0.0"));
  const lines = sums.trimEnd().split("\n");
  assertEquals(lines.map((l) => l.slice(66)), [
    archiveName("2.0.0", "aarch64-pc-windows-msvc"),
    archiveName("2.0.0", "x86_64-unknown-linux-gnu"),
  ]);
  for (const line of lines) assert(/^[0-9a-f]{64} {2}\S+$/.test(line), line);
  const checker = (await which("sha256sum")) ? ["sha256sum", "-c"] : ["shasum", "-a", "256", "-c"];
  if (posix && await which(checker[0])) {
    const checked = await run(checker[0], [...checker.slice(1), "SHA256SUMS"], out);
    assertEquals(checked.code, 0, checked.stdout);
  }
});

Deno.test("deno.json's version is the one the binary reports", async () => {
  assertEquals(await projectVersion(), VERSION);
});
