/**
 * The demo's output pieces (demo/report.ts) and its wait for detached sub-agents
 * (demo/agent_steps.ts watchBatch), with scripted records and status lines.
 */
import { assertEquals, assertRejects } from "@std/assert";
import { watchBatch } from "../../demo/agent_steps.ts";
import {
  isPeaksOwned,
  memberLine,
  peaksFilesSummary,
  removalCommand,
  splitChange,
  withoutEta,
} from "../../demo/report.ts";

Deno.test("the product change leaves out what peaks wrote itself", () => {
  const porcelain = [
    " M src/App.tsx",
    "?? .claude/settings.json",
    "?? .peaks/.gitignore",
    "?? .peaks/_runtime/s/prd/requests/001.md",
    "?? AGENTS.md",
    "?? CLAUDE.md",
    "?? src/pages/ProfilePage.tsx",
    "R  src/old.ts -> src/new.ts",
    "",
  ].join("\n");
  const { product, peaks } = splitChange(porcelain);
  assertEquals(product, [
    " M src/App.tsx",
    "?? src/pages/ProfilePage.tsx",
    "R  src/old.ts -> src/new.ts",
  ]);
  assertEquals(peaksFilesSummary(peaks), ".claude/settings.json, .peaks/, AGENTS.md, CLAUDE.md");
  for (
    const path of ["docs/CLAUDE.md", ".claude/commands/x.md", "src/.peaks.ts", "AGENTS.md.bak"]
  ) {
    assertEquals(isPeaksOwned(path), false, path);
  }
  assertEquals(isPeaksOwned(".agents/skills/peaks-code/SKILL.md"), true);
});

Deno.test("a hint loses its ETA; a member line shows the measured time", () => {
  assertEquals(
    withoutEta("⏳ Spawning detached sub-agent via claude: rid=001 (ETA ~60s)"),
    "⏳ Spawning detached sub-agent via claude: rid=001",
  );
  assertEquals(withoutEta("[peaks-code] swarm 1/1 done"), "[peaks-code] swarm 1/1 done");
  assertEquals(memberLine("rd", "done", 1.04), "↳ rd done in 1.0 s");
  assertEquals(memberLine("qa", "failed", null), "↳ qa failed");
});

Deno.test("the removal command quotes the folder for the shell", () => {
  assertEquals(removalCommand("/tmp/peaks-demo-1"), "rm -rf /tmp/peaks-demo-1");
  assertEquals(removalCommand("/tmp/my demo's"), `rm -rf '/tmp/my demo'\\''s'`);
});

/**
 * A batch that moves on with every read: the second sub-agent finishes at the fourth read. Read
 * the status line before the records and the last line shown is stale; read it after and it is
 * the final one.
 */
function movingBatch() {
  let clock = 0;
  const now =
    () => (clock++ >= 3
      ? ["done", "done"]
      : clock > 1
      ? ["done", "running"]
      : ["running", "running"]);
  return {
    records: () => {
      const [a, b] = now();
      return Promise.resolve([
        { recordPath: "a.json", status: a },
        { recordPath: "b.json", status: b },
        { recordPath: "other-batch.json", status: "running" },
      ]);
    },
    statusLine: () => {
      const done = now().filter((s) => s === "done").length;
      return Promise.resolve(done === 2 ? "swarm 2/2 done" : `swarm ${2 - done}/2 running`);
    },
  };
}

Deno.test("the wait ends with the status line taken after the last sub-agent finished", async () => {
  const shown: string[] = [];
  await watchBatch(movingBatch(), ["a.json", "b.json"], (line) => shown.push(line), {
    timeoutMs: 5_000,
    intervalMs: 0,
    onTimeout: () => new Error("timeout"),
  });
  assertEquals(shown.at(-1), "swarm 2/2 done");
  assertEquals(shown, ["swarm 1/2 running", "swarm 2/2 done"]);
});

Deno.test("a batch that never finishes ends in the caller's timeout error", async () => {
  const stuck = {
    records: () => Promise.resolve([{ recordPath: "a.json", status: "running" }]),
    statusLine: () => Promise.resolve("swarm 1/1 running"),
  };
  await assertRejects(
    () =>
      watchBatch(stuck, ["a.json"], () => {}, {
        timeoutMs: 0,
        intervalMs: 0,
        onTimeout: () => new Error("sub-agents did not finish in time"),
      }),
    Error,
    "did not finish in time",
  );
});
