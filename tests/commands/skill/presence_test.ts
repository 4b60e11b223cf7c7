import { assertEquals, assertMatch } from "@std/assert";
import { runPeaks } from "../../support/cli.ts";
import { tempDir } from "../../support/temp.ts";

async function workspace(path: string): Promise<string> {
  const init = await runPeaks(["workspace", "init", "--json"], { cwd: path });
  return init.json.data.sessionId;
}

Deno.test("presence:set then presence: skill, mode, gate, role and the header line", async () => {
  await using dir = await tempDir();
  await workspace(dir.path);
  const empty = await runPeaks(["skill", "presence", "--json"], { cwd: dir.path });
  assertEquals(empty.code, 0);
  assertEquals(empty.json.data.skill, null);
  assertEquals(empty.json.data.context.action, "unknown");

  const set = await runPeaks([
    "skill",
    "presence:set",
    "peaks-code",
    "--mode",
    "full-auto",
    "--gate",
    "startup",
    "--json",
  ], {
    cwd: dir.path,
  });
  assertEquals(set.code, 0, set.stdout);
  const gate = await runPeaks([
    "skill",
    "presence:set",
    "peaks-code",
    "--gate",
    "swarm-fan-out",
    "--role",
    "rd",
  ], { cwd: dir.path });
  assertEquals(gate.code, 0);
  const shown = await runPeaks(["skill", "presence", "--json"], { cwd: dir.path });
  assertEquals(shown.json.data.skill, "peaks-code");
  assertEquals(shown.json.data.mode, "full-auto", "mode kept when not given");
  assertEquals(shown.json.data.gate, "swarm-fan-out");
  assertEquals(shown.json.data.role, "rd");
  assertEquals(shown.json.data.setAt, set.json.data.presence.setAt);
  const header = await runPeaks(["skill", "presence", "--header"], { cwd: dir.path });
  assertEquals(
    header.stdout,
    "Peaks Skill: peaks-code | Role: rd | Gate: swarm-fan-out | Context: unknown\n",
  );
});

Deno.test("presence is per caller window when a caller id is set, shared otherwise", async () => {
  await using dir = await tempDir();
  await workspace(dir.path);
  await runPeaks(["skill", "presence:set", "peaks-code", "--gate", "startup"], { cwd: dir.path });
  await runPeaks(["skill", "presence:set", "peaks-rd", "--gate", "impl"], {
    cwd: dir.path,
    env: { PEAKS_CALLER_ID: "window-a" },
  });
  await runPeaks(["skill", "presence:set", "peaks-qa", "--gate", "verify"], {
    cwd: dir.path,
    env: { CLAUDE_CODE_SESSION_ID: "0f3c6a8e-1111-2222-3333-444455556666" },
  });
  const a = await runPeaks(["skill", "presence", "--json"], {
    cwd: dir.path,
    env: { PEAKS_CALLER_ID: "window-a" },
  });
  const b = await runPeaks(["skill", "presence", "--json"], {
    cwd: dir.path,
    env: { CLAUDE_CODE_SESSION_ID: "0f3c6a8e-1111-2222-3333-444455556666" },
  });
  const other = await runPeaks(["skill", "presence", "--json"], {
    cwd: dir.path,
    env: { PEAKS_CALLER_ID: "window-z" },
  });
  const none = await runPeaks(["skill", "presence", "--json"], { cwd: dir.path });
  assertEquals(a.json.data.skill, "peaks-rd");
  assertEquals(b.json.data.skill, "peaks-qa");
  assertEquals(
    other.json.data.skill,
    "peaks-code",
    "a window without its own file sees the session's",
  );
  assertEquals(none.json.data.skill, "peaks-code");
  const odd = await runPeaks(["skill", "presence:set", "peaks-ui", "--json"], {
    cwd: dir.path,
    env: { PEAKS_CALLER_ID: "../../etc/passwd" },
  });
  assertEquals(odd.code, 0, "odd caller ids are hashed into a safe file name");
  assertMatch(odd.json.data.path, /presence\/h-[0-9a-f]{24}\.json$/);
});

Deno.test("presence:set refuses bad modes and names", async () => {
  await using dir = await tempDir();
  await workspace(dir.path);
  const mode = await runPeaks(
    ["skill", "presence:set", "peaks-code", "--mode", "turbo", "--json"],
    { cwd: dir.path },
  );
  assertEquals(mode.code, 2);
  assertEquals(mode.json.data.allowed, ["full-auto", "assisted", "swarm", "strict", "24h"]);
  const name = await runPeaks(["skill", "presence:set", "Peaks Code", "--json"], { cwd: dir.path });
  assertEquals(name.code, 2);
});

Deno.test("the status line stores the context reading that presence reports, by tier", async () => {
  await using dir = await tempDir();
  await workspace(dir.path);
  await runPeaks(["skill", "presence:set", "peaks-code", "--gate", "prd", "--role", "prd"], {
    cwd: dir.path,
  });
  const cases: Array<[unknown, number | null, string]> = [
    [{ context_window: { used_percentage: 41 } }, 41, "ok"],
    [
      {
        context_window: {
          context_window_size: 200000,
          current_usage: { input_tokens: 100000, cache_read_input_tokens: 20000 },
        },
      },
      60,
      "soft-warn",
    ],
    [{ context_window: { used_percentage: 86 } }, 86, "pre-compact"],
    [{ context_window: { used_percentage: 97 } }, 97, "red-line"],
  ];
  for (const [status, pct, action] of cases) {
    const render = await runPeaks(["statusline", "render"], {
      cwd: dir.path,
      stdin: JSON.stringify(status),
    });
    assertEquals(render.code, 0);
    assertEquals(render.stderr, "");
    assertMatch(render.stdout, new RegExp(`ctx ${pct}%`));
    const presence = await runPeaks(["skill", "presence", "--json"], { cwd: dir.path });
    assertEquals(presence.json.data.context.ratioPct, pct);
    assertEquals(presence.json.data.context.action, action);
    assertEquals(presence.json.data.context.source, "statusline");
  }
  const header = await runPeaks(["skill", "presence", "--header"], { cwd: dir.path });
  assertEquals(
    header.stdout,
    "Peaks Skill: peaks-code | Role: prd | Gate: prd | Context: 97% (red-line)\n",
  );
});

Deno.test("the header's Next: segment shows the step presence:set --next recorded", async () => {
  await using dir = await tempDir();
  await workspace(dir.path);
  const peaks = (...args: string[]) => runPeaks(["skill", ...args], { cwd: dir.path });
  await peaks("presence:set", "peaks-code", "--gate", "prd");
  assertEquals(
    (await peaks("presence", "--header", "--next")).stdout,
    "Peaks Skill: peaks-code | Role: - | Gate: prd | Context: unknown | Next: -\n",
  );
  const newline = await peaks("presence:set", "peaks-code", "--next", "two\nlines", "--json");
  assertEquals([newline.code, newline.json.code], [2, "INVALID_FLAG_VALUE"]);
  await peaks("presence:set", "peaks-code", "--next", "  confirm the PRD   with the user ");
  assertEquals(
    (await peaks("presence", "--header", "--next")).stdout,
    "Peaks Skill: peaks-code | Role: - | Gate: prd | Context: unknown | Next: confirm the PRD with the user\n",
  );
  // Kept while other fields change; without --next the header is as before.
  await peaks("presence:set", "peaks-code", "--role", "prd");
  const json = await runPeaks(["skill", "presence", "--json"], { cwd: dir.path });
  assertEquals(json.json.data.next, "confirm the PRD with the user");
  assertEquals(
    (await peaks("presence", "--header")).stdout,
    "Peaks Skill: peaks-code | Role: prd | Gate: prd | Context: unknown\n",
  );
  await peaks("presence:set", "peaks-code", "--next", "-");
  assertMatch((await peaks("presence", "--header", "--next")).stdout, /\| Next: -\n$/);
});
