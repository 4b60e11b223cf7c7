import { assert, assertEquals } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { baseEnv, peaksArgs, REPO } from "../support/cli.ts";
import { tempDir } from "../support/temp.ts";
import { parseRunbook, runbookPath, runRunbook } from "../../demo/runbook.ts";
import { agentStep } from "../../demo/agent_steps.ts";
import { copySampleProject } from "../../demo/sample.ts";

Deno.test("the runbook's commands run in order on the sample project, each one succeeding", async () => {
  await using dir = await tempDir();
  const root = join(dir.path, "team-directory");
  await copySampleProject(root);
  const markdown = await Deno.readTextFile(runbookPath(REPO));
  const steps = parseRunbook(markdown);
  assert(steps.filter((s) => s.kind === "command").length > 40, "the runbook lost its commands");

  const peaks = [Deno.execPath(), ...peaksArgs([])];
  const env = {
    ...(await baseEnv({ cwd: root, home: join(dir.path, "home") })),
    CLAUDECODE: "1",
    STAND_IN_PEAKS: JSON.stringify(peaks),
    STAND_IN_STEP_MS: "0",
  };
  const state = await runRunbook(markdown, {
    root,
    peaks,
    standIn: [Deno.execPath(), "run", "-q", "-A", join(REPO, "demo", "stand_in", "agent.ts")],
    env,
    mode: "in-process",
    vars: {
      rid: "001-profile-page",
      type: "feature",
      mode: "full-auto",
      title: "Member profile page with avatar upload",
    },
    agent: agentStep,
  });

  const failed = state.history.filter((h) => h.code !== 0);
  assertEquals(failed, []);
  const list = state.history.at(-1)!.envelope!;
  const states = Object.fromEntries(
    (list.data!.requests as Array<{ role: string; state: string }>).map((r) => [r.role, r.state]),
  );
  assertEquals(states, {
    prd: "handed-off",
    ui: "handed-off",
    rd: "qa-handoff",
    qa: "verdict-issued",
    sc: "handed-off",
    txt: "finalized",
  });
  const converge = state.history.find((h) => h.text.startsWith("peaks swarm converge"))!;
  assertEquals(converge.code, 0);
  const app = await Deno.readTextFile(join(root, "src", "App.tsx"));
  assert(app.includes("ProfilePage"), "the rd stand-in changed the product code");
});
