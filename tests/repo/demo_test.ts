/**
 * `deno task demo --fast` end to end, reading its human output: every wait ends with the batch's
 * final status line and each member's final state, no ETA meant for real sub-agents, a product
 * change without peaks' own files, and a last line that removes what the demo left behind.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { cacheDir, REPO } from "../support/cli.ts";
import { exists, tempDir } from "../support/temp.ts";

const windows = Deno.build.os === "windows";

/** The lines from a `⏳` hint to the next command line: one wait for sub-agents. */
function waits(lines: string[]): string[][] {
  const blocks: string[][] = [];
  lines.forEach((line, i) => {
    if (!line.trimStart().startsWith("⏳")) return;
    const end = lines.findIndex((l, j) => j > i && /^\s+✓ /.test(l));
    blocks.push(lines.slice(i, end));
  });
  return blocks;
}

Deno.test({
  name: `the demo's output: final states, no stand-in ETA, the product change, the clean-up${
    windows ? " (ignored: the demo's stand-ins are sh scripts)" : ""
  }`,
  ignore: windows,
  async fn() {
    await using dir = await tempDir();
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-q",
        "-A",
        "--config",
        join(REPO, "deno.json"),
        join(REPO, "demo", "run.ts"),
        "--fast",
      ],
      cwd: dir.path,
      env: {
        HOME: join(dir.path, "home-not-used"),
        PATH: Deno.env.get("PATH") ?? "",
        DENO_DIR: await cacheDir(),
        TMPDIR: dir.path,
        NO_COLOR: "1",
      },
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    assertEquals(out.code, 0, stdout + new TextDecoder().decode(out.stderr));
    const lines = stdout.trimEnd().split("\n");

    const blocks = waits(lines);
    assertEquals(blocks.length, 4, stdout);
    const expected = [["ui", "rd-planning", "qa-test-cases"], ["rd"], ["qa"], ["txt"]];
    blocks.forEach((block, i) => {
      const members = block.filter((l) => l.trimStart().startsWith("↳ "));
      assertEquals(members.length, expected[i].length, block.join("\n"));
      expected[i].forEach((role, j) =>
        assertMatch(members[j], new RegExp(`^  ↳ ${role} done in \\d+\\.\\d s$`))
      );
      // The last status line before the members is the batch's final one.
      const statuses = block.filter((l) => l.trimStart().startsWith("[peaks-code]"));
      assertMatch(
        statuses.at(-1) ?? "",
        /^ {2}\[peaks-code\] (swarm (\d+)\/\2|sub-agent) done$/,
        block.join("\n"),
      );
      assertEquals(block.indexOf(statuses.at(-1)!) < block.indexOf(members[0]), true);
    });
    assertEquals(stdout.includes("ETA ~"), false, "the stand-in's hints carry no ETA");

    const change = lines.slice(
      lines.findIndex((l) => l.includes("product change")) + 1,
      lines.findIndex((l) => l.includes("written by peaks itself")),
    );
    assert(change.length >= 2, stdout);
    for (const line of change) assertMatch(line, /^ {4}(?: M|\?\?) src\//);
    assertStringIncludes(
      stdout,
      "  written by peaks itself: .claude/settings.json, .peaks/, AGENTS.md, CLAUDE.md\n",
    );

    // The output ends with the command that removes the demo's folder, and it does.
    const cleanUp = lines.findIndex((l) => l === "Clean up");
    assert(cleanUp !== -1 && cleanUp >= lines.length - 5, stdout);
    assertMatch(
      lines.at(-1) ?? "",
      /^done: the feature request went from PRD to handoff .* \d+\.\d s$/,
    );
    const command = lines[cleanUp + 1].trim();
    const folder = /^rm -rf (\S+)$/.exec(command)?.[1] ?? "";
    assert(folder.startsWith(join(dir.path, "peaks-demo-")), command);
    assertStringIncludes(stdout, `project: ${folder}/team-directory`);
    assert(await exists(join(folder, "team-directory", ".peaks")));
    const removed = await new Deno.Command("sh", { args: ["-c", command], stdin: "null" }).output();
    assertEquals(removed.code, 0);
    assertEquals(await exists(folder), false);
  },
});
