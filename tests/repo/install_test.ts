/**
 * install.sh against real archives (release/package.ts around a stand-in
 * peaks), offline: PATH holds only tar/gzip/sha256sum and friends, never curl
 * or wget, and PEAKS_DOWNLOAD_BASE points nowhere.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { TARGETS } from "../../release/targets.ts";
import {
  buildRelease,
  HOST,
  INSTALL_SH,
  offlineTools,
  resign,
  runInstaller,
  snapshot,
  standInScript,
} from "../support/release.ts";
import { exists, tempDir, writeText } from "../support/temp.ts";

const ignore = Deno.build.os === "windows" || HOST === undefined;
const target = HOST!;
/** The installer's closing line sends the reader into a project first: skills install writes there. */
const NEXT = "Next step: cd into your project (its git repository), then run: ";

interface Sandbox {
  root: string;
  home: string;
  peaksHome: string;
  env: Record<string, string>;
}

async function sandbox(root: string, omitTools: string[] = []): Promise<Sandbox> {
  const home = join(root, "home");
  await Deno.mkdir(home, { recursive: true });
  return {
    root,
    home,
    peaksHome: join(home, ".peaks"),
    env: {
      HOME: home,
      SHELL: "/bin/bash",
      PATH: await offlineTools(root, omitTools),
      TMPDIR: root,
      PEAKS_DOWNLOAD_BASE: `file://${join(root, "no-such-mirror")}`,
    },
  };
}

function profileOf(box: Sandbox): string {
  return join(box.home, Deno.build.os === "darwin" ? ".bash_profile" : ".bashrc");
}

async function installedVersion(box: Sandbox): Promise<string> {
  const out = await new Deno.Command(join(box.peaksHome, "bin", "peaks"), {
    args: ["--version"],
    env: { PATH: box.env.PATH },
    clearEnv: true,
    stdout: "piped",
  }).output();
  return new TextDecoder().decode(out.stdout).trim();
}

async function leftovers(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name.startsWith(".staging") || entry.name.startsWith("peaks-install")) {
      names.push(entry.name);
    }
  }
  return names;
}

Deno.test({
  name: "install.sh installs from a local archive with no network: layout, PATH line, next step",
  ignore,
  async fn() {
    await using dir = await tempDir();
    const box = await sandbox(dir.path);
    const release = await buildRelease(join(dir.path, "release"), { version: "2.0.0", target });
    const result = await runInstaller(
      ["--archive", release.archive, "--checksums", release.sums, "--yes"],
      box.env,
    );
    assertEquals(result.code, 0, result.stderr);
    assertEquals(await installedVersion(box), "peaks 2.0.0");
    assertEquals(
      await Deno.readTextFile(join(box.peaksHome, "skills", "peaks-fixture", "SKILL.md")),
      "fixture\n",
    );
    for (const doc of ["LICENSE", "README.md", "THIRD_PARTY_LICENSES.md"]) {
      assert(await exists(join(box.peaksHome, doc)), doc);
    }
    const bin = join(box.peaksHome, "bin");
    assertEquals(
      await Deno.readTextFile(profileOf(box)),
      `export PATH=${bin}:"$PATH" # added by the peaks installer\n`,
    );
    assertStringIncludes(result.stdout, `added ${bin} to PATH in ${profileOf(box)}`);
    assertEquals(result.lastLine, `${NEXT}${bin}/peaks skills install`);
    const manifest = await Deno.readTextFile(join(box.peaksHome, ".install-manifest"));
    assertStringIncludes(manifest, "version=2.0.0\n");
    assertStringIncludes(manifest, `profile=${profileOf(box)}\n`);
    assertEquals(await leftovers(box.peaksHome), []);
    assertEquals(await leftovers(dir.path), []);
  },
});

Deno.test({
  name: "install.sh finds the archive next to itself; --no-modify-path prints the hint instead",
  ignore,
  async fn() {
    await using dir = await tempDir();
    const box = await sandbox(dir.path);
    const release = await buildRelease(join(dir.path, "release"), { version: "2.0.0", target });
    const script = join(release.dir, "install.sh");
    await Deno.copyFile(INSTALL_SH, script);
    const result = await runInstaller(["--yes", "--no-modify-path"], box.env, { script });
    assertEquals(result.code, 0, result.stderr);
    assertStringIncludes(
      result.stdout,
      `using the archive next to the installer: ${release.archive}`,
    );
    assertEquals(await installedVersion(box), "peaks 2.0.0");
    assertEquals(await exists(profileOf(box)), false);
    const bin = join(box.peaksHome, "bin");
    assertStringIncludes(
      result.stdout,
      `peaks is not on PATH. Add it with: export PATH=${bin}:"$PATH"`,
    );
    assertEquals(result.lastLine, `${NEXT}${bin}/peaks skills install`);

    // Already on PATH: the next step is the bare command and no profile is touched.
    const again = await runInstaller(["--yes"], { ...box.env, PATH: `${bin}:${box.env.PATH}` }, {
      script,
    });
    assertEquals(again.code, 0, again.stderr);
    assertEquals(again.lastLine, `${NEXT}peaks skills install`);
    assertEquals(await exists(profileOf(box)), false);
  },
});

Deno.test({
  name: "install.sh re-install changes nothing; an upgrade replaces the binary and the skills",
  ignore,
  async fn() {
    await using dir = await tempDir();
    const box = await sandbox(dir.path);
    const v1 = await buildRelease(join(dir.path, "v1"), {
      version: "2.0.0",
      target,
      skills: { "peaks-fixture/SKILL.md": "one\n", "peaks-old/SKILL.md": "old\n" },
    });
    const args = (r: typeof v1) => ["--archive", r.archive, "--checksums", r.sums, "--yes"];
    assertEquals((await runInstaller(args(v1), box.env)).code, 0);
    const first = await snapshot(box.home);
    // No --yes: without a terminal the installer does not ask.
    const second = await runInstaller(args(v1).filter((a) => a !== "--yes"), box.env);
    assertEquals(second.code, 0, second.stderr);
    assertEquals(await snapshot(box.home), first);
    assertStringIncludes(second.stdout, "already puts");

    const v2 = await buildRelease(join(dir.path, "v2"), {
      version: "2.0.1",
      target,
      skills: { "peaks-fixture/SKILL.md": "two\n" },
    });
    const upgrade = await runInstaller(args(v2), box.env);
    assertEquals(upgrade.code, 0, upgrade.stderr);
    assertEquals(await installedVersion(box), "peaks 2.0.1");
    const skills = join(box.peaksHome, "skills");
    assertEquals(await Deno.readTextFile(join(skills, "peaks-fixture", "SKILL.md")), "two\n");
    assertEquals(await exists(join(skills, "peaks-old")), false);
    const profile = await Deno.readTextFile(profileOf(box));
    assertEquals(profile.split("\n").filter((line) => line.includes("peaks installer")).length, 1);
    assertStringIncludes(
      await Deno.readTextFile(join(box.peaksHome, ".install-manifest")),
      "version=2.0.1\n",
    );
    assertEquals(await leftovers(box.peaksHome), []);
  },
});

/** Identity and timestamp of a path: a rewrite changes one of them even when the bytes match. */
async function stamp(path: string): Promise<string> {
  const info = await Deno.lstat(path);
  return `${info.ino}:${info.mtime?.getTime()}:${info.size}`;
}

Deno.test({
  name: "install.sh again for the same version rewrites nothing, bin/ included, and says so",
  ignore,
  async fn() {
    await using dir = await tempDir();
    const box = await sandbox(dir.path);
    const release = await buildRelease(join(dir.path, "release"), { version: "2.0.0", target });
    const args = ["--archive", release.archive, "--checksums", release.sums, "--yes"];
    assertEquals((await runInstaller(args, box.env)).code, 0);
    const watched = [
      join(box.peaksHome, "bin"),
      join(box.peaksHome, "bin", "peaks"),
      join(box.peaksHome, "skills"),
      join(box.peaksHome, "skills", "peaks-fixture", "SKILL.md"),
      join(box.peaksHome, ".claude-plugin", "plugin.json"),
      join(box.peaksHome, ".install-manifest"),
      profileOf(box),
    ];
    const before = await Promise.all(watched.map(stamp));
    const tree = await snapshot(box.home);

    const again = await runInstaller(args, box.env);
    assertEquals(again.code, 0, again.stderr);
    assertStringIncludes(
      again.stdout,
      `peaks 2.0.0 is already installed in ${box.peaksHome}; nothing to replace\n`,
    );
    assertEquals(again.stdout.includes("installed peaks 2.0.0 into"), false, again.stdout);
    assertStringIncludes(again.stdout, `${profileOf(box)} already puts`);
    assertEquals(await Promise.all(watched.map(stamp)), before);
    assertEquals(await snapshot(box.home), tree);
    assertEquals(await leftovers(box.peaksHome), []);

    // The same version over a damaged install is a repair, not a no-op.
    await Deno.writeTextFile(join(box.peaksHome, "bin", "peaks"), "#!/bin/sh\nexit 1\n");
    const repair = await runInstaller(args, box.env);
    assertEquals(repair.code, 0, repair.stderr);
    assertStringIncludes(repair.stdout, `installed peaks 2.0.0 into ${box.peaksHome}\n`);
    assertEquals(await installedVersion(box), "peaks 2.0.0");
    assertEquals(await snapshot(box.home), tree);
  },
});

Deno.test({
  name: "install.sh refuses a tampered archive before unpacking and leaves the install untouched",
  ignore,
  async fn() {
    await using dir = await tempDir();
    const box = await sandbox(dir.path);
    const good = await buildRelease(join(dir.path, "good"), { version: "2.0.0", target });
    assertEquals((await runInstaller(["--archive", good.archive, "--yes"], box.env)).code, 0);
    const before = await snapshot(box.home);

    // Same name, different bytes; SHA256SUMS still lists the genuine archive.
    const evil = await buildRelease(join(dir.path, "evil"), {
      version: "2.0.0",
      target,
      binaryText: standInScript("2.0.0") + "# tampered\n",
    });
    const result = await runInstaller(
      ["--archive", evil.archive, "--checksums", good.sums, "--yes"],
      box.env,
    );
    assertEquals(result.code, 1);
    assertMatch(
      result.stderr,
      /^error: checksum mismatch for peaks-2\.0\.0-.+; nothing was changed\n$/,
    );
    assertEquals(await snapshot(box.home), before);
    assertEquals(await leftovers(dir.path), []);
  },
});

Deno.test({
  name: "install.sh with a mismatch and no earlier install creates nothing",
  ignore,
  async fn() {
    await using dir = await tempDir();
    const box = await sandbox(dir.path);
    const release = await buildRelease(join(dir.path, "release"), { version: "2.0.0", target });
    await Deno.writeTextFile(release.sums, `${"0".repeat(64)}  ${release.name}\n`);
    const result = await runInstaller(["--archive", release.archive, "--yes"], box.env);
    assertEquals(result.code, 1);
    assertStringIncludes(result.stderr, "checksum mismatch");
    assertEquals(await snapshot(box.home), {});
  },
});

Deno.test({
  name: "install.sh refuses damaged archives even when SHA256SUMS matches them",
  ignore,
  async fn() {
    await using dir = await tempDir();
    const box = await sandbox(dir.path);
    const good = await buildRelease(join(dir.path, "good"), { version: "2.0.0", target });
    assertEquals((await runInstaller(["--archive", good.archive, "--yes"], box.env)).code, 0);
    const before = await snapshot(box.home);

    const cases: [
      string,
      (r: Awaited<ReturnType<typeof buildRelease>>) => Promise<void>,
      RegExp,
    ][] = [
      ["truncated", async (r) => {
        const bytes = await Deno.readFile(r.archive);
        await Deno.writeFile(r.archive, bytes.subarray(0, Math.floor(bytes.length / 2)));
      }, /could not be unpacked \(damaged archive\?\); nothing was changed/],
      ["not gzip", async (r) => {
        await Deno.writeTextFile(r.archive, "this is not an archive\n");
      }, /could not be unpacked/],
    ];
    for (const [label, damage, message] of cases) {
      const bad = await buildRelease(join(dir.path, label), { version: "2.0.0", target });
      await damage(bad);
      await resign(bad);
      const result = await runInstaller(["--archive", bad.archive, "--yes"], box.env);
      assertEquals(result.code, 1, label);
      assertMatch(result.stderr, message, label);
      assertEquals(await snapshot(box.home), before, label);
    }

    const broken = await buildRelease(join(dir.path, "broken"), {
      version: "2.0.0",
      target,
      binaryText: "#!/bin/sh\necho 'cannot execute binary file' >&2\nexit 126\n",
    });
    const result = await runInstaller(["--archive", broken.archive, "--yes"], box.env);
    assertEquals(result.code, 1);
    assertStringIncludes(
      result.stderr,
      "does not run here (it printed: cannot execute binary file)",
    );
    assertEquals(await snapshot(box.home), before);
  },
});

Deno.test({
  name: "install.sh fails closed without checksums, a matching entry or a SHA-256 tool",
  ignore,
  async fn() {
    await using dir = await tempDir();
    const box = await sandbox(dir.path);
    const release = await buildRelease(join(dir.path, "release"), { version: "2.0.0", target });

    await Deno.rename(release.sums, join(dir.path, "elsewhere"));
    const noSums = await runInstaller(["--archive", release.archive, "--yes"], box.env);
    assertEquals(noSums.code, 1);
    assertStringIncludes(noSums.stderr, "no SHA256SUMS next to");

    const otherSums = join(dir.path, "other-sums");
    await Deno.writeTextFile(otherSums, `${"a".repeat(64)}  peaks-9.9.9-${target}.tar.gz\n`);
    const noEntry = await runInstaller(
      ["--archive", release.archive, "--checksums", otherSums, "--yes"],
      box.env,
    );
    assertEquals(noEntry.code, 1);
    assertStringIncludes(noEntry.stderr, `has no entry for ${release.name}`);

    const bare = await sandbox(join(dir.path, "bare"), ["sha256sum", "shasum"]);
    const noTool = await runInstaller(
      ["--archive", release.archive, "--checksums", join(dir.path, "elsewhere"), "--yes"],
      bare.env,
    );
    assertEquals(noTool.code, 1);
    assertStringIncludes(noTool.stderr, "neither sha256sum nor shasum");
    assertEquals(await snapshot(box.home), {});
    assertEquals(await snapshot(bare.home), {});
  },
});

Deno.test({
  name: "install.sh refuses another platform's archive and bad options",
  ignore,
  async fn() {
    await using dir = await tempDir();
    const box = await sandbox(dir.path);
    const other = TARGETS.find((t) => t !== target && !t.includes("windows"))!;
    const release = await buildRelease(join(dir.path, "release"), {
      version: "2.0.0",
      target: other,
    });
    const wrong = await runInstaller(["--archive", release.archive, "--yes"], box.env);
    assertEquals(wrong.code, 1);
    assertStringIncludes(wrong.stderr, `is not for this machine (${target})`);

    const unknown = await runInstaller(["--frobnicate"], box.env);
    assertEquals(unknown.code, 2);
    assertStringIncludes(unknown.stderr, "unknown option: --frobnicate");
    const badVersion = await runInstaller(["--version", "../../etc"], box.env);
    assertEquals(badVersion.code, 2);
    const missingValue = await runInstaller(["--archive"], box.env);
    assertEquals(missingValue.code, 2);
    assertEquals(await snapshot(box.home), {});
  },
});

Deno.test({
  name: "install.sh --uninstall removes only what the installer put there",
  ignore,
  async fn() {
    await using dir = await tempDir();
    const box = await sandbox(dir.path);
    const profile = profileOf(box);
    await writeText(profile, "alias ll='ls -l'\n");
    const release = await buildRelease(join(dir.path, "release"), { version: "2.0.0", target });
    assertEquals((await runInstaller(["--archive", release.archive, "--yes"], box.env)).code, 0);
    // State that is not the installer's: a project workspace and a user note.
    await writeText(join(box.peaksHome, "_runtime", "session.json"), "{}\n");
    await writeText(join(box.peaksHome, "bin", "my-tool"), "mine\n");

    const result = await runInstaller(["--uninstall", "--yes"], box.env);
    assertEquals(result.code, 0, result.stderr);
    assertEquals(result.lastLine, `Removed peaks from ${box.peaksHome}.`);
    assertEquals(Object.keys(await snapshot(box.peaksHome)).sort(), [
      "_runtime",
      "_runtime/session.json",
      "bin",
      "bin/my-tool",
    ]);
    assertEquals(await Deno.readTextFile(profile), "alias ll='ls -l'\n");

    const again = await runInstaller(["--uninstall", "--yes"], box.env);
    assertEquals(again.code, 0);
    assertStringIncludes(again.stdout, "nothing to remove");
  },
});

Deno.test({
  name: "install.sh --uninstall leaves a profile that was empty before the install empty, not gone",
  ignore,
  async fn() {
    await using dir = await tempDir();
    const box = await sandbox(dir.path);
    const profile = profileOf(box);
    await Deno.writeTextFile(profile, "");
    const release = await buildRelease(join(dir.path, "release"), { version: "2.0.0", target });
    const install = await runInstaller(["--archive", release.archive, "--yes"], box.env);
    assertEquals(install.code, 0, install.stderr);
    assertStringIncludes(await Deno.readTextFile(profile), "# added by the peaks installer");
    assertStringIncludes(
      await Deno.readTextFile(join(box.peaksHome, ".install-manifest")),
      `\nprofile=${profile}\n`,
    );

    const result = await runInstaller(["--uninstall", "--yes"], box.env);
    assertEquals(result.code, 0, result.stderr);
    assertStringIncludes(result.stdout, `removed the PATH line from ${profile}\n`);
    assertEquals(await Deno.readTextFile(profile), "");
    assertEquals(Object.keys(await snapshot(box.home)), [profile.slice(box.home.length + 1)]);
  },
});

Deno.test({
  name: "install.sh --uninstall of a clean install leaves no trace, and refuses a foreign peaks",
  ignore,
  async fn() {
    await using dir = await tempDir();
    const box = await sandbox(dir.path);
    const release = await buildRelease(join(dir.path, "release"), { version: "2.0.0", target });
    assertEquals((await runInstaller(["--archive", release.archive, "--yes"], box.env)).code, 0);
    const manifest = await Deno.readTextFile(join(box.peaksHome, ".install-manifest"));
    assertStringIncludes(manifest, "\nfile=.claude-plugin/plugin.json\n");
    assertStringIncludes(manifest, "\nmkdir=.claude-plugin\n");
    assertStringIncludes(manifest, `\ncreated-profile=${profileOf(box)}\n`);
    assertEquals((await runInstaller(["--uninstall", "--yes"], box.env)).code, 0);
    assertEquals(await snapshot(box.home), {});

    await writeText(join(box.peaksHome, "bin", "peaks"), "#!/bin/sh\n");
    const foreign = await runInstaller(["--uninstall", "--yes"], box.env);
    assertEquals(foreign.code, 1);
    assertStringIncludes(foreign.stderr, "was not put there by this installer");
    assert(await exists(join(box.peaksHome, "bin", "peaks")));
  },
});

Deno.test({
  name: "install.sh into a folder of the user's own files never deletes or overwrites one of them",
  ignore,
  async fn() {
    await using dir = await tempDir();
    const box = await sandbox(dir.path);
    // PEAKS_HOME pointed at a folder that is not the installer's: the user's own skills and notes.
    const home = join(box.home, ".claude");
    const env = { ...box.env, PEAKS_HOME: home };
    await writeText(join(home, "skills", "my-skill", "SKILL.md"), "mine\n");
    await writeText(join(home, "README.md"), "my notes\n");
    const release = await buildRelease(join(dir.path, "release"), { version: "2.0.0", target });
    const args = ["--archive", release.archive, "--yes", "--no-modify-path"];
    const before = await snapshot(box.home);

    const refused = await runInstaller(args, env);
    assertEquals(refused.code, 1, refused.stdout);
    assertMatch(
      refused.stderr,
      new RegExp(
        `^error: ${home} already holds files this installer did not put there: README\\.md`,
      ),
    );
    assertStringIncludes(refused.stderr, "Nothing was changed.");
    assertEquals(await snapshot(box.home), before);

    // Without the clashing file the install goes in beside the user's skills.
    await Deno.remove(join(home, "README.md"));
    const beside = await runInstaller(args, env);
    assertEquals(beside.code, 0, beside.stderr);
    assertEquals(await Deno.readTextFile(join(home, "skills", "my-skill", "SKILL.md")), "mine\n");
    assertEquals(
      await Deno.readTextFile(join(home, "skills", "peaks-fixture", "SKILL.md")),
      "fixture\n",
    );

    // An upgrade replaces only what the installer put there; a file the user added stays.
    await writeText(join(home, "skills", "peaks-fixture", "notes.md"), "my notes\n");
    const v2 = await buildRelease(join(dir.path, "v2"), {
      version: "2.0.1",
      target,
      skills: { "peaks-next/SKILL.md": "next\n" },
    });
    const upgrade = await runInstaller(["--archive", v2.archive, "--yes", "--no-modify-path"], env);
    assertEquals(upgrade.code, 0, upgrade.stderr);
    assertEquals(await exists(join(home, "skills", "peaks-fixture", "SKILL.md")), false);
    assertEquals(
      await Deno.readTextFile(join(home, "skills", "peaks-fixture", "notes.md")),
      "my notes\n",
    );
    assertEquals(await Deno.readTextFile(join(home, "skills", "my-skill", "SKILL.md")), "mine\n");

    const removed = await runInstaller(["--uninstall", "--yes"], env);
    assertEquals(removed.code, 0, removed.stderr);
    assertEquals(Object.keys(await snapshot(home)).sort(), [
      "skills",
      "skills/my-skill",
      "skills/my-skill/SKILL.md",
      "skills/peaks-fixture",
      "skills/peaks-fixture/notes.md",
    ]);
  },
});

Deno.test({
  name: "install.sh upgrades an install whose manifest lists whole trees (dir=), as older ones did",
  ignore,
  async fn() {
    await using dir = await tempDir();
    const box = await sandbox(dir.path);
    const v1 = await buildRelease(join(dir.path, "v1"), {
      version: "2.0.0",
      target,
      skills: { "peaks-old/SKILL.md": "old\n" },
    });
    const args = (r: typeof v1) => ["--archive", r.archive, "--yes", "--no-modify-path"];
    assertEquals((await runInstaller(args(v1), box.env)).code, 0);
    const manifest = join(box.peaksHome, ".install-manifest");
    await Deno.writeTextFile(
      manifest,
      "version=2.0.0\nfile=bin/peaks\ndir=skills\ndir=.claude-plugin\ndir=hooks\n" +
        "dir=extensions\nfile=LICENSE\nfile=README.md\nfile=THIRD_PARTY_LICENSES.md\n",
    );
    const v2 = await buildRelease(join(dir.path, "v2"), { version: "2.0.1", target });
    const upgrade = await runInstaller(args(v2), box.env);
    assertEquals(upgrade.code, 0, upgrade.stderr);
    assertEquals(await exists(join(box.peaksHome, "skills", "peaks-old")), false);
    assertStringIncludes(await Deno.readTextFile(manifest), "\nmkdir=skills\n");
    assertEquals((await runInstaller(["--uninstall", "--yes"], box.env)).code, 0);
    assertEquals(await snapshot(box.home), {});
  },
});
