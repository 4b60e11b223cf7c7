/**
 * The installers that edit a host's settings file change only the bytes they mean to change: a
 * Latin-1 byte in a comment, a byte-order mark, CRLF line ends, key order and indentation come back
 * as they were, and an install followed by its uninstall gives the file back byte for byte.
 * `statusline uninstall` removes only the command peaks installs, never a user's own command
 * that merely contains `peaks statusline render`.
 */
import { assertEquals } from "@std/assert";
import { runPeaks } from "../support/cli.ts";
import { tempDir } from "../support/temp.ts";
import { join } from "../../lib/infra/std.ts";

const enc = (text: string) => new TextEncoder().encode(text);
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) out.set(p, (at += p.length) - p.length);
  return out;
};

/** A settings file no re-encoding survives: BOM, CRLF, tabs, a Latin-1 é (0xE9) in a comment. */
const ORIGINAL = concat(
  new Uint8Array([0xef, 0xbb, 0xbf]),
  enc("{\r\n\t// caf"),
  new Uint8Array([0xe9]),
  enc(' \u00fc\r\n\t"zeta": 1,\r\n\t"permissions": {\r\n\t\t"allow": ["Bash(ls)"]\r\n\t},\r\n'),
  enc('\t"alpha": {"b": 2, "a": 1}\r\n}\r\n'),
);

async function run(cwd: string, args: string[]) {
  const result = await runPeaks([...args, "--json"], { cwd, home: join(cwd, "home") });
  assertEquals(result.code, 0, result.stdout + result.stderr);
  return result;
}

/** The bytes `after` has that `before` has not, as one contiguous edit. */
function inserted(before: Uint8Array, after: Uint8Array): { removed: number; added: string } {
  let start = 0;
  while (start < before.length && before[start] === after[start]) start++;
  let end = 0;
  while (
    end < before.length - start && end < after.length - start &&
    before[before.length - 1 - end] === after[after.length - 1 - end]
  ) end++;
  return {
    removed: before.length - start - end,
    added: new TextDecoder().decode(after.slice(start, after.length - end)),
  };
}

for (
  const [what, install, uninstall, words] of [
    ["permissions", ["permissions", "install"], ["permissions", "uninstall"], "Bash(peaks:*)"],
    ["statusline", ["statusline", "install"], ["statusline", "uninstall"], "statusline render"],
    ["hooks", ["hooks", "install"], ["hooks", "uninstall"], "peaks hooks run"],
  ] as const
) {
  Deno.test(`${what} install and uninstall change only their own bytes (Latin-1, BOM, CRLF, tabs)`, async () => {
    await using dir = await tempDir();
    const path = join(
      dir.path,
      ".claude",
      what === "statusline" ? "settings.json" : "settings.local.json",
    );
    await Deno.mkdir(join(dir.path, ".claude"), { recursive: true });
    await Deno.writeFile(path, ORIGINAL);
    await run(dir.path, [...install]);
    const after = await Deno.readFile(path);
    const edit = inserted(ORIGINAL, after);
    assertEquals(edit.removed, 0, `bytes of the user's were removed:\n${edit.added}`);
    assertEquals(edit.added.includes(words), true, edit.added);
    assertEquals(edit.added.includes("\r\n") || !edit.added.includes("\n"), true, "CRLF kept");
    await run(dir.path, [...uninstall]);
    assertEquals(await Deno.readFile(path), ORIGINAL, "uninstall gives the file back");
  });
}

Deno.test("statusline uninstall leaves a user's own command that merely runs peaks statusline render", async () => {
  for (
    const command of [
      "~/bin/my-line.sh && peaks statusline render",
      "peaks statusline render | my-filter",
      "bash -c 'peaks statusline render'",
      "echo peaks statusline render",
    ]
  ) {
    await using dir = await tempDir();
    const path = join(dir.path, ".claude", "settings.json");
    const text = `{\n  "statusLine": ${JSON.stringify({ type: "command", command })}\n}\n`;
    await Deno.mkdir(join(dir.path, ".claude"), { recursive: true });
    await Deno.writeTextFile(path, text);
    const result = await runPeaks(["statusline", "uninstall", "--json"], { cwd: dir.path });
    assertEquals([result.code, result.json.code], [3, "STATUSLINE_CONFLICT"], command);
    assertEquals(await Deno.readTextFile(path), text, command);
  }
  // What peaks installs, or the same behind a path to the binary, is removed.
  for (const command of ["peaks statusline render", '"/opt/peaks bin/peaks" statusline render']) {
    await using dir = await tempDir();
    const path = join(dir.path, ".claude", "settings.json");
    await Deno.mkdir(join(dir.path, ".claude"), { recursive: true });
    await Deno.writeTextFile(
      path,
      `{"statusLine": ${JSON.stringify({ type: "command", command })}}`,
    );
    const result = await runPeaks(["statusline", "uninstall", "--json"], { cwd: dir.path });
    assertEquals([result.code, result.json.data.action], [0, "removed"], command);
  }
});

Deno.test("hooks uninstall leaves a user's own hook that merely starts with peaks' command", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, ".claude", "settings.local.json");
  const own = "peaks hooks run --host claude-code --event PreToolUse && ./audit.sh";
  const text =
    `{\n  "hooks": {\n    "PreToolUse": [\n      {"matcher": "Bash", "hooks": [{"type": "command", "command": ${
      JSON.stringify(own)
    }}]}\n    ]\n  }\n}\n`;
  await Deno.mkdir(join(dir.path, ".claude"), { recursive: true });
  await Deno.writeTextFile(path, text);
  await run(dir.path, ["hooks", "install"]);
  await run(dir.path, ["hooks", "uninstall"]);
  const after = JSON.parse(await Deno.readTextFile(path));
  assertEquals(after.hooks.PreToolUse[0].hooks[0].command, own);
});

Deno.test("hooks install and uninstall leave the user's own hooks as written: comments and layout inside", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, ".claude", "settings.local.json");
  const text = `{
  "hooks": {
    // mine: keep
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./audit.sh"}]}],
    "Stop": [ { "hooks": [ { "type": "command", "command": "./bye.sh" } ] } ]
  }
}
`;
  await Deno.mkdir(join(dir.path, ".claude"), { recursive: true });
  await Deno.writeTextFile(path, text);
  await run(dir.path, ["hooks", "install"]);
  const after = await Deno.readTextFile(path);
  for (
    const mine of [
      "// mine: keep",
      '{"matcher": "Bash", "hooks": [{"type": "command", "command": "./audit.sh"}]}',
      '{ "hooks": [ { "type": "command", "command": "./bye.sh" } ] }',
    ]
  ) assertEquals(after.includes(mine), true, `${mine} lost:\n${after}`);
  await run(dir.path, ["hooks", "uninstall"]);
  assertEquals(await Deno.readTextFile(path), text);
});
