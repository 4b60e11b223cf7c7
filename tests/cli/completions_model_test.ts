import { assert, assertEquals, assertRejects } from "@std/assert";
import { buildCompletionModel } from "../../lib/cli/completions/model.ts";
import { COMMANDS, GROUPS } from "../../lib/cli/table.ts";
import { defineCommand, type FlagDefs } from "../../lib/infra/command/spec.ts";
import { flag } from "../../lib/infra/command/flag.ts";

Deno.test("the completion model covers every visible command, flag and allowed value in the table", async () => {
  const model = await buildCompletionModel(COMMANDS, GROUPS);
  const visible = COMMANDS.filter((c) => !c.hidden);
  assertEquals(model.commands.map((c) => c.name), visible.map((c) => c.name));
  for (const entry of visible) {
    const spec = (await entry.load()).default;
    const command = model.commands.find((c) => c.name === entry.name)!;
    const declared = Object.entries(spec.flags as FlagDefs).filter(([, d]) => !d.hidden);
    assertEquals(command.flags.map((f) => f.name), declared.map(([n]) => `--${n}`));
    for (const [name, def] of declared) {
      assertEquals(command.flags.find((f) => f.name === `--${name}`)!.values, [
        ...(def.values ?? []),
      ]);
    }
  }
  const tops = model.top.map((t) => t.word);
  for (const entry of visible) assert(tops.includes(entry.name.split(" ")[0]), entry.name);
  assertEquals(model.subcommands.skills.map((w) => w.word), [
    "install",
    "uninstall",
    "list",
    "verify",
  ]);
  const completions = model.commands.find((c) => c.name === "completions")!;
  assertEquals(completions.args, [["bash", "zsh", "fish", "powershell"]]);
  assertEquals(model.globalFlags.find((f) => f.name === "--project")!.value, "path");
});

Deno.test("a value that is unsafe to embed in a shell script is refused, not quoted wrongly", async () => {
  const bad = defineCommand({
    name: "demo run",
    flags: { mode: flag.enum(["ok", "a'b"], "A mode.") },
    examples: [],
    run: () => Promise.resolve({ data: {} }),
  });
  await assertRejects(
    () =>
      buildCompletionModel([{
        name: "demo run",
        summary: "x",
        load: () => Promise.resolve({ default: bad }),
      }], GROUPS),
    Error,
    "cannot put",
  );
});
