import { assert, assertEquals, assertMatch } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { commandLine } from "../../lib/infra/shell.ts";
import { baseEnv, peaksArgs, runPeaks } from "../support/cli.ts";
import { tempDir } from "../support/temp.ts";
import { needs } from "../support/tools.ts";
import { buildCompletionModel } from "../../lib/cli/completions/model.ts";
import { ALIASES, COMMANDS, GROUPS } from "../../lib/cli/table.ts";

/** The shell words that run peaks exactly as the CLI tests do. */
const PEAKS = commandLine([Deno.execPath(), ...peaksArgs([])]);

async function sh(
  shell: string,
  args: string[],
  cwd: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    ...(await baseEnv({ cwd, home: cwd })),
    XDG_CONFIG_HOME: cwd,
    XDG_DATA_HOME: cwd,
    ZDOTDIR: cwd,
  };
  const out = await new Deno.Command(shell, {
    args,
    cwd,
    env,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

async function script(shell: string, cwd: string): Promise<string> {
  const result = await runPeaks(["completions", shell], { cwd });
  assertEquals(result.code, 0, result.stderr);
  return result.stdout;
}

Deno.test("bash: `source <(peaks completions bash); complete -p peaks` registers the completer", async () => {
  await using dir = await tempDir();
  const result = await sh(
    "bash",
    ["--norc", "--noprofile", "-c", `source <(${PEAKS} completions bash); complete -p peaks`],
    dir.path,
  );
  assertEquals(result.stderr, "");
  assertEquals(result.code, 0);
  assertEquals(result.stdout, "complete -o default -F _peaks peaks\n");
});

Deno.test("bash: simulated TAB presses complete commands, flags and allowed values", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, "peaks.bash"), await script("bash", dir.path));
  const model = await buildCompletionModel(COMMANDS, GROUPS, ALIASES);
  const cases: [string, string][] = [
    ["peaks ", model.top.map((t) => t.word).join(" ")],
    ["peaks ski", "skill skills"],
    ["peaks skills ", "install uninstall list verify"],
    ["peaks skills ins", "install"],
    ["peaks skills install --ag", "--agent"],
    [
      "peaks skills install --agent ",
      "claude-code codex copilot cursor gemini lingma opencode qoder qwen trae all",
    ],
    ["peaks skills install --agent cod", "codex"],
    ["peaks --json skills list --scope ", "project user all"],
    ["peaks skills install --agent=tr", "trae"],
    ["peaks skill presence:s", "set"],
    ["peaks completions ", "bash zsh fish powershell"],
    ["peaks --project . skills verify --agent trae ", ""],
    ["peaks nonsense ", ""],
  ];
  const probe = cases.map(([line]) =>
    `COMP_LINE=${commandLine([line])}; COMP_POINT=\${#COMP_LINE}; _peaks; echo "\${COMPREPLY[*]}"`
  ).join("\n");
  const result = await sh(
    "bash",
    ["--norc", "--noprofile", "-c", `source ./peaks.bash\n${probe}`],
    dir.path,
  );
  assertEquals(result.stderr, "");
  assertEquals(result.stdout.split("\n").slice(0, -1), cases.map(([, expected]) => expected));
});

Deno.test("bash: a path flag completes file names", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, "peaks.bash"), await script("bash", dir.path));
  await Deno.mkdir(join(dir.path, "projects-here"));
  const result = await sh(
    "bash",
    [
      "--norc",
      "--noprofile",
      "-c",
      'source ./peaks.bash; COMP_LINE="peaks --project proj"; COMP_POINT=${#COMP_LINE}; _peaks; echo "${COMPREPLY[*]}"',
    ],
    dir.path,
  );
  assertEquals(result.stdout, "projects-here\n");
});

const zsh = await needs("zsh");
const fish = await needs("fish");
const pwsh = await needs("pwsh");

Deno.test({
  name: `zsh: the script registers _peaks and computes the same candidates${zsh.note}`,
  ignore: zsh.ignore,
  fn: async () => {
    await using dir = await tempDir();
    await Deno.writeTextFile(join(dir.path, "peaks.zsh"), await script("zsh", dir.path));
    const result = await sh(
      "zsh",
      [
        "-f",
        "-c",
        [
          "autoload -Uz compinit && compinit -D -u",
          "source ./peaks.zsh",
          'print -r -- "registered:$_comps[peaks]"',
          '_peaks_candidates "" skills | cut -f1 | tr "\\n" " "; echo',
          '_peaks_candidates "" skills install --agent | tr "\\n" " "; echo',
          '_peaks_candidates "presence:" skill | cut -f1 | tr "\\n" " "; echo',
          '_peaks_candidates "" --project',
        ].join("\n"),
      ],
      dir.path,
    );
    assertEquals(result.stderr, "");
    assertEquals(result.stdout.split("\n"), [
      "registered:_peaks",
      "install uninstall list verify ",
      "claude-code codex copilot cursor gemini lingma opencode qoder qwen trae all ",
      "presence presence:set ",
      "@path",
      "",
    ]);
  },
});

Deno.test({
  name: `fish: \`complete -C\` answers from the generated script${fish.note}`,
  ignore: fish.ignore,
  fn: async () => {
    await using dir = await tempDir();
    await Deno.writeTextFile(join(dir.path, "peaks.fish"), await script("fish", dir.path));
    const lines = [
      "peaks skills ",
      "peaks skills install --agent ",
      "peaks skill presence:s",
      "peaks completions p",
    ];
    const probe = lines.map((l) =>
      `complete -C${commandLine([l])} | string replace -r '\\t.*' '' | string join ' '`
    );
    const result = await sh(
      "fish",
      ["--no-config", "-c", `source ./peaks.fish\n${probe.join("\n")}`],
      dir.path,
    );
    assertEquals(result.stderr, "");
    assertEquals(result.stdout.split("\n").slice(0, -1), [
      "install list uninstall verify",
      "all claude-code codex copilot cursor gemini lingma opencode qoder qwen trae",
      "presence:set",
      "powershell",
    ]);
  },
});

Deno.test("powershell: the script is well formed and carries the whole command table", async () => {
  await using dir = await tempDir();
  const text = await script("powershell", dir.path);
  assertMatch(
    text,
    /^Register-ArgumentCompleter -Native -CommandName 'peaks', 'peaks\.exe' -ScriptBlock \{$/m,
  );
  // Outside quoted strings, braces and parentheses must balance.
  const code = text.split("\n").filter((l) => !l.trimStart().startsWith("#")).join("\n").replace(
    /'(?:[^']|'')*'/g,
    "''",
  )
    .replace(/"[^"]*"/g, '""');
  for (const [open, close] of [["{", "}"], ["(", ")"], ["[", "]"]]) {
    assertEquals(code.split(open).length, code.split(close).length, `${open}${close} unbalanced`);
  }
  const model = await buildCompletionModel(COMMANDS, GROUPS, ALIASES);
  for (const command of model.commands) assert(text.includes(`'${command.name}'`), command.name);
  assert(
    text.includes(
      "'skills install|--agent' = @('claude-code', 'codex', 'copilot', 'cursor', 'gemini', 'lingma', 'opencode', 'qoder', 'qwen', 'trae', 'all')",
    ),
  );
});

Deno.test({
  name: `powershell: pwsh loads the script without an error${pwsh.note}`,
  ignore: pwsh.ignore,
  async fn() {
    await using dir = await tempDir();
    const text = await script("powershell", dir.path);
    const parsed = await sh("pwsh", ["-NoProfile", "-Command", text], dir.path);
    assertEquals(parsed.code, 0, parsed.stderr);
  },
});

Deno.test("completions --json wraps the script; an unknown shell is a usage error", async () => {
  await using dir = await tempDir();
  const json = await runPeaks(["completions", "fish", "--json"], { cwd: dir.path });
  assertEquals(json.json.data.shell, "fish");
  assertMatch(json.json.data.script, /complete -c peaks -f -a '\(__peaks_candidates\)'/);
  const bad = await runPeaks(["completions", "tcsh", "--json"], { cwd: dir.path });
  assertEquals(bad.code, 2);
  assertEquals(bad.json.code, "INVALID_ARGUMENT");
  assertEquals(bad.json.data.allowed, ["bash", "zsh", "fish", "powershell"]);
});
