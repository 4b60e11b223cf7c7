import { assert, assertEquals, assertMatch, assertNotEquals } from "@std/assert";
import { pool, runPeaks } from "../../support/cli.ts";
import { exists, tempDir } from "../../support/temp.ts";
import { peaksWords, shellWords } from "../../support/next_actions.ts";

Deno.test("workspace init is idempotent and reuses the bound session", async () => {
  await using dir = await tempDir();
  const first = await runPeaks(["workspace", "init", "--json"], { cwd: dir.path });
  assertEquals(first.code, 0, first.stderr);
  assertEquals(first.json.data.session, "created");
  assertMatch(first.json.data.sessionId, /^\d{4}-\d{2}-\d{2}-session-[0-9a-f]{6}$/);
  assertEquals(first.json.data.projectRoot, dir.path);
  assert(first.json.data.created.includes(".peaks/.gitignore"));
  const second = await runPeaks(["workspace", "init", "--json"], { cwd: dir.path });
  assertEquals(second.json.data.sessionId, first.json.data.sessionId);
  assertEquals(second.json.data.session, "reused");
  assertEquals(second.json.data.created, []);
  assertEquals(second.json.data.gitignore, "unchanged");
  for (const action of first.json.nextActions) {
    const next = await runPeaks([...peaksWords(action), "--json"], { cwd: dir.path });
    assertEquals(next.code, 0, `${action}: ${next.stdout}${next.stderr}`);
  }
});

Deno.test("concurrent workspace inits agree on one session", async () => {
  await using dir = await tempDir();
  const results = await pool(
    24,
    24,
    () => runPeaks(["workspace", "init", "--json"], { cwd: dir.path }),
  );
  const ids = new Set(results.map((r) => r.json?.data?.sessionId));
  assertEquals(results.map((r) => r.code), Array(24).fill(0));
  assertEquals(ids.size, 1);
});

Deno.test("the managed .gitignore really ignores run-time state (git check-ignore)", async () => {
  await using dir = await tempDir();
  const git = (args: string[]) =>
    new Deno.Command("git", { args, cwd: dir.path, stdout: "piped", stderr: "piped" }).output();
  await git(["init", "-q"]);
  await runPeaks(["workspace", "init", "--json"], { cwd: dir.path });
  const ignored = [
    ".peaks/_runtime/s/session.json",
    ".peaks/_sub_agents/s/dispatch-x.json",
    ".peaks/preferences.local.json",
    ".peaks/preferences.json.lock",
    ".peaks/preferences.json.1234abcd.tmp",
  ];
  for (const path of ignored) {
    const result = await git(["check-ignore", "-q", path]);
    assertEquals(result.code, 0, `${path} should be ignored`);
  }
  for (
    const path of [
      ".peaks/preferences.json",
      ".peaks/project-scan/project-scan.md",
      ".peaks/.gitignore",
    ]
  ) {
    const result = await git(["check-ignore", "-q", path]);
    assertEquals(result.code, 1, `${path} should not be ignored`);
  }
});

Deno.test("the project root is the nearest workspace, bounded by the git top level", async () => {
  await using dir = await tempDir();
  await new Deno.Command("git", { args: ["init", "-q"], cwd: dir.path }).output();
  await Deno.mkdir(`${dir.path}/packages/app/src`, { recursive: true });
  const init = await runPeaks(["workspace", "init", "--json"], {
    cwd: `${dir.path}/packages/app/src`,
  });
  assertEquals(init.json.data.projectRoot, dir.path, "git top level, not the sub-package");
  assertEquals(await exists(`${dir.path}/packages/app/src/.peaks`), false);
  const info = await runPeaks(["session", "info", "--json"], { cwd: `${dir.path}/packages/app` });
  assertEquals(info.json.data.sessionId, init.json.data.sessionId);
});

Deno.test("no session: NO_ACTIVE_SESSION whose next action works when run", async () => {
  await using dir = await tempDir();
  const missing = await runPeaks(["session", "info", "--active", "--json"], { cwd: dir.path });
  assertEquals(missing.code, 1);
  assertEquals(missing.json.code, "NO_ACTIVE_SESSION");
  assertEquals(await exists(`${dir.path}/.peaks`), false, "reading creates nothing");
  const [action] = missing.json.nextActions;
  const run = await runPeaks([...peaksWords(action), "--json"], { cwd: "/" });
  assertEquals(run.code, 0, run.stdout);
  const again = await runPeaks(["session", "info", "--active", "--json"], { cwd: dir.path });
  assertEquals(again.code, 0);
  assertEquals(again.json.data.hasTitle, false);
});

Deno.test("session resolution: --session-id > PEAKS_SESSION_ID > binding", async () => {
  await using dir = await tempDir();
  const bound =
    (await runPeaks(["workspace", "init", "--json"], { cwd: dir.path })).json.data.sessionId;
  const other = "2026-01-02-session-abcdef";
  const unknown = await runPeaks(["session", "info", "--json"], {
    cwd: dir.path,
    env: { PEAKS_SESSION_ID: other },
  });
  assertEquals(unknown.json.code, "SESSION_NOT_FOUND");
  assertEquals(await exists(`${dir.path}/.peaks/_runtime/${other}`), false);
  const create = await runPeaks([...peaksWords(unknown.json.nextActions[0]), "--json"], {
    cwd: dir.path,
  });
  assertEquals(create.json.data.session, "bound");
  assertEquals(create.json.data.previousSessionId, bound);
  const fromEnv = await runPeaks(["session", "info", "--json"], {
    cwd: dir.path,
    env: { PEAKS_SESSION_ID: bound },
  });
  assertEquals(fromEnv.json.data.sessionId, bound);
  assertEquals(fromEnv.json.data.source, "env");
  const fromFlag = await runPeaks(["session", "info", "--session-id", other, "--json"], {
    cwd: dir.path,
    env: { PEAKS_SESSION_ID: bound },
  });
  assertEquals(fromFlag.json.data.sessionId, other);
  const badEnv = await runPeaks(["session", "info", "--json"], {
    cwd: dir.path,
    env: { PEAKS_SESSION_ID: "../etc" },
  });
  assertEquals(badEnv.json.code, "INVALID_IDENTIFIER");
});

Deno.test("session list is newest first with titles; title validates and refuses unknown sessions", async () => {
  await using dir = await tempDir();
  const a =
    (await runPeaks(["workspace", "init", "--session-id", "2026-01-01-session-aaaaaa", "--json"], {
      cwd: dir.path,
    })).json.data.sessionId;
  const b =
    (await runPeaks(["workspace", "init", "--session-id", "2026-01-02-session-bbbbbb", "--json"], {
      cwd: dir.path,
    })).json.data.sessionId;
  const titled = await runPeaks(["session", "title", a, "修复登录页OAuth回调异常", "--json"], {
    cwd: dir.path,
  });
  assertEquals(titled.code, 0, titled.stdout);
  const unquoted = await runPeaks(["session", "title", b, "Add", "dark", "mode", "toggle"], {
    cwd: dir.path,
  });
  assertEquals(unquoted.code, 0);
  const list = await runPeaks(["session", "list", "--json"], { cwd: dir.path });
  assertEquals(list.json.data.sessions.map((s: { sessionId: string }) => s.sessionId), [b, a]);
  assertEquals(list.json.data.sessions[1].title, "修复登录页OAuth回调异常");
  assertEquals(list.json.data.sessions[0].title, "Add dark mode toggle");
  assertEquals(list.json.data.sessions[0].active, true);

  for (const bad of ["", "x".repeat(121), "line\nbreak", "bell\u0007"]) {
    const result = await runPeaks(["session", "title", a, bad, "--json"], { cwd: dir.path });
    assertEquals(result.code, 2, JSON.stringify(bad));
  }
  const emoji = await runPeaks(["session", "title", a, "🚀".repeat(120), "--json"], {
    cwd: dir.path,
  });
  assertEquals(emoji.code, 0, "120 characters, even outside the BMP");
  const ghost = await runPeaks(["session", "title", "2026-03-03-session-cccccc", "x", "--json"], {
    cwd: dir.path,
  });
  assertEquals(ghost.json.code, "SESSION_NOT_FOUND");
  assertEquals(await exists(`${dir.path}/.peaks/_runtime/2026-03-03-session-cccccc`), false);
  const info = await runPeaks(["session", "info", a, "--json"], { cwd: dir.path });
  assertEquals(info.json.data.hasTitle, true);
  assertNotEquals(info.json.data.active, true);
});

Deno.test("a closed stdout is not an error", async () => {
  await using dir = await tempDir();
  await runPeaks(["workspace", "init"], { cwd: dir.path });
  // Enough sessions that the list overflows a pipe buffer once `head` has gone.
  for (let i = 0; i < 1500; i++) {
    const sid = `2026-01-01-session-${i.toString(16).padStart(6, "0")}`;
    await Deno.mkdir(`${dir.path}/.peaks/_runtime/${sid}`);
    await Deno.writeTextFile(
      `${dir.path}/.peaks/_runtime/${sid}/session.json`,
      JSON.stringify({
        sessionId: sid,
        createdAt: "2026-01-01T00:00:00Z",
        lastActivity: "2026-01-01T00:00:00Z",
        title: "t".repeat(100),
      }),
    );
  }
  const { peaksArgs, baseEnv } = await import("../../support/cli.ts");
  const command = [Deno.execPath(), ...peaksArgs(["session", "list", "--limit", "10000"])]
    .map((w) => `'${w}'`).join(" ");
  const out = await new Deno.Command("bash", {
    args: ["-c", `${command} | head -c 10 >/dev/null; echo "status=\${PIPESTATUS[0]}"`],
    cwd: dir.path,
    env: await baseEnv({ cwd: dir.path }),
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(new TextDecoder().decode(out.stdout).trim(), "status=0");
  assertEquals(new TextDecoder().decode(out.stderr), "");
});

Deno.test("a broken binding is reported with a repair that keeps its bytes; init works afterwards", async () => {
  await using dir = await tempDir();
  await runPeaks(["workspace", "init"], { cwd: dir.path });
  const binding = `${dir.path}/.peaks/_runtime/session.json`;
  await Deno.writeTextFile(binding, '{"sessionId":');
  for (const command of [["session", "info", "--json"], ["workspace", "init", "--json"]]) {
    const broken = await runPeaks(command, { cwd: dir.path });
    assertEquals(broken.json.code, "RECORD_UNREADABLE", command.join(" "));
    assertEquals(broken.json.nextActions, [`mv ${binding} ${binding}.corrupt`]);
  }
  const [program, ...args] = shellWords(`mv ${binding} ${binding}.corrupt`);
  await new Deno.Command(program, { args }).output();
  const again = await runPeaks(["workspace", "init", "--json"], { cwd: dir.path });
  assertEquals(again.code, 0, again.stdout);
  assertEquals(await Deno.readTextFile(`${binding}.corrupt`), '{"sessionId":');
});
