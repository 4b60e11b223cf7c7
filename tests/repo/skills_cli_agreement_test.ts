/**
 * Where a skill and the CLI describe the same step, they say the same thing:
 * each case here was once a guess for a literal agent.
 */
import { assert, assertEquals, assertMatch } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import type { Need } from "../../lib/workflow/next.ts";
import { REPO, runPeaks } from "../support/cli.ts";
import { tempDir, writeText } from "../support/temp.ts";

async function prose(path: string): Promise<string> {
  return (await Deno.readTextFile(join(REPO, "skills", path))).replace(/\s+/g, " ");
}

async function allSkillText(): Promise<string> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(join(REPO, "skills"))) {
    if (!entry.isDirectory) continue;
    out.push(await prose(`${entry.name}/SKILL.md`));
    try {
      for await (const ref of Deno.readDir(join(REPO, "skills", entry.name, "references"))) {
        out.push(await prose(`${entry.name}/references/${ref.name}`));
      }
    } catch {
      // no references folder
    }
  }
  return out.join("\n");
}

Deno.test("data.needs: the skill names the keys an entry carries (path, problem, lines)", async () => {
  const entry: Required<Need> = {
    path: "sc/r1-impact.md",
    lines: ["## Impact"],
    problem: "missing",
  };
  const code = await prose("peaks-code/SKILL.md");
  const at = code.indexOf("produce what `data.needs` lists");
  assert(at >= 0);
  const rule = code.slice(at, at + 220);
  for (const key of Object.keys(entry)) assert(rule.includes(`\`${key}\``), `${key}: ${rule}`);
});

Deno.test("standards: the scan's nextAction applies in the modes that decide alone, previews in the others, as the skill says", async () => {
  await using dir = await tempDir();
  await writeText(`${dir.path}/package.json`, '{"dependencies":{"react":"^18.2.0"}}');
  const next = async () => {
    const scan = await runPeaks(["scan", "archetype", "--json"], { cwd: dir.path });
    assertEquals(scan.code, 0, scan.stderr);
    return scan.json.nextActions.at(-1) as string;
  };
  const preview = await next();
  assertMatch(preview, /peaks standards init/);
  assert(!preview.includes("--apply"), preview);
  for (const [mode, apply] of [["assisted", false], ["full-auto", true], ["24h", true]] as const) {
    await writeText(
      `${dir.path}/.peaks/preferences.json`,
      JSON.stringify({ schema_version: "2.0.0", swarmMode: mode }),
    );
    assertEquals((await next()).includes(" --apply"), apply, mode);
  }
  const code = await prose("peaks-code/SKILL.md");
  assertMatch(code, /then run the scan's nextAction, which writes CLAUDE\.md/);
  assertMatch(code, /In `assisted` and `strict` it is a preview \(a dry run\): show the user/);
});

Deno.test("swarm plan: the skills give the chain's command, without --emit-dag", async () => {
  const text = await allSkillText();
  assert(!text.includes("--emit-dag"));
  assertMatch(await prose("peaks-code/references/swarm.md"), /peaks swarm plan --rid <rid> --json/);
});

Deno.test("the PRD is created in one call, the same in peaks-code and peaks-prd", async () => {
  for (const skill of ["peaks-code/SKILL.md", "peaks-prd/SKILL.md"]) {
    const text = await prose(skill);
    const inits = text.match(/peaks request init --role prd .*?--json/g) ?? [];
    assert(inits.length > 0, skill);
    for (const line of inits) assertMatch(line, /--apply/, `${skill}: ${line}`);
  }
});

Deno.test("the shared channel's completion value is defined where it is asked for", async () => {
  const source = await Deno.readTextFile(join(REPO, "lib/dispatch/instructions.ts"));
  assert(!source.includes("artefact metas JSON"));
  assertMatch(source, /\{"artefacts":\["<path of each artefact you registered>"\]\}/);
  assertMatch(
    await prose("peaks-code/references/context-governance.md"),
    /value: `\{"artefacts":\[<registered paths>\]\}`/,
  );
});

Deno.test("resume: the skill's path names the fields request show gives", async () => {
  const code = await prose("peaks-code/SKILL.md");
  assertMatch(
    code,
    /peaks session start --skill peaks-code --json peaks request show <rid> --role prd --json/,
  );
  for (const field of ["`data.step`", "`waitingFor`", "`data.subAgents`", "`SUB_AGENT_LIVE`"]) {
    assert(code.includes(field), field);
  }
  for (const state of ["`live`", "`stale`", "`finished`"]) assert(code.includes(state), state);
});
