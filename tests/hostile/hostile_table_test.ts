/**
 * The hand-written hostile cases, run through the real entry point with the
 * binary's permissions. A command in the table without cases fails here:
 * whoever adds a command adds its cases in tests/hostile/cases_*.ts.
 */
import { assert, assertEquals } from "@std/assert";
import { COMMANDS } from "../../lib/cli/table.ts";
import { pool } from "../support/cli.ts";
import { ALL_CASES, loadCommands } from "./cases.ts";
import { freshFixture } from "./fixture.ts";
import type { HostileCase } from "./model.ts";
import { readOnlySupport, runJudged, runReal } from "./runner.ts";

const commands = await loadCommands();

Deno.test("every command in the table has hostile cases, and every case names a command", () => {
  const missing = commands.filter((c) => !c.cases || c.cases.cases.length === 0).map((c) => c.name);
  assertEquals(missing, [], "add cases for these commands in tests/hostile/cases_*.ts");
  const names = new Set(COMMANDS.map((c) => c.name));
  assertEquals(Object.keys(ALL_CASES).filter((name) => !names.has(name)), []);
});

interface Planned {
  command: string;
  c: HostileCase;
}

function plan(): Planned[] {
  const out: Planned[] = [];
  for (const { name, spec, cases } of commands) {
    for (const c of cases?.cases ?? []) {
      if (c.whenFlag && !Object.hasOwn(spec.flags, c.whenFlag)) {
        // Ready for a flag that has not landed yet: today the flag itself must be refused.
        out.push({ command: name, c: { ...c, setup: c.setup, ...c.without!, unchanged: true } });
      } else out.push({ command: name, c });
    }
  }
  return out;
}

Deno.test("hostile cases through the real binary: exit codes, error codes, nothing changed", async (t) => {
  const planned = plan();
  const ro = await readOnlySupport();
  const results = await pool(planned.length, 4, async (i) => {
    const { command, c } = planned[i];
    if (c.readOnly && ro === "none") return { command, c, problems: [], skipped: true };
    await using fx = await freshFixture();
    await c.setup?.(fx);
    const argv = [...c.argv(fx), "--json", "--project", fx.root];
    const { problems } = await runJudged(fx, c, () => runReal(c, fx, argv));
    return { command, c, problems, skipped: false };
  });
  const skipped = results.filter((r) => r.skipped).length;
  if (skipped) {
    console.warn(`${skipped} read-only cases skipped: no way to make a folder read-only here`);
  }
  for (const { command, c, problems } of results) {
    await t.step(`${command}: ${c.name}`, () => {
      assertEquals(problems, []);
    });
  }
  assert(results.length > COMMANDS.length);
});
