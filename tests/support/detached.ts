/**
 * Detached-mode fixtures: fake vendor CLIs (POSIX sh scripts named like the
 * real ones) in a bin folder put first on PATH, and bounded polling for the
 * files a supervisor leaves behind. Nothing here asserts timings.
 */
import { assert } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { runPeaks, type RunResult } from "./cli.ts";
import { exists, writeText } from "./temp.ts";
import { pollUntil } from "./wait.ts";

/** Generous: a run ends in well under a second here, but the machine may be busy. */
export const DEADLINE_MS = 60_000;

export const SCRIPTS = {
  /** Saves the prompt it got on stdin and its arguments, prints, writes an artefact, succeeds. */
  ok: `#!/bin/sh
out="$PWD/.peaks/_runtime/$PEAKS_SESSION_ID/fake"
mkdir -p "$out"
cat > "$out/prompt-$$.txt"
printf '%s\\n' "$@" > "$out/args-$$.txt"
echo "working on it"
sleep 0.3
echo "artefact" > "$out/artefact-$$.md"
echo "almost there" >&2
rid=$(sed -n 's/^# Detached sub-agent: \\([^ ]*\\) for \\(.*\\)$/\\2/p' "$out/prompt-$$.txt")
role=$(sed -n 's/^# Detached sub-agent: \\([^ ]*\\) for .*$/\\1/p' "$out/prompt-$$.txt")
echo "{\\"role\\":\\"$role\\",\\"rid\\":\\"$rid\\",\\"status\\":\\"ok\\",\\"artefacts\\":[\\"fake/artefact-$$.md\\"],\\"warnings\\":[]}"
exit 0
`,
  /** Complains on stderr and exits 7. */
  fail: `#!/bin/sh
cat > /dev/null
echo "starting"
echo "boom: the vendor failed" >&2
exit 7
`,
  /** Dies from SIGKILL, as the OS's out-of-memory killer would do it. */
  crash: `#!/bin/sh
cat > /dev/null
echo "about to be killed"
kill -9 $$
`,
  /** Writes a partial artefact, then ignores SIGTERM and never ends. */
  stubborn: `#!/bin/sh
cat > /dev/null
out="$PWD/.peaks/_runtime/$PEAKS_SESSION_ID/fake"
mkdir -p "$out"
echo "partial" > "$out/partial-$$.md"
trap '' TERM
echo "hanging"
while :; do sleep 0.2; done
`,
  /** Never ends on its own; SIGTERM stops it. */
  hang: `#!/bin/sh
cat > /dev/null
echo "hanging politely"
while :; do sleep 0.2; done
`,
  /** Prints a line now and then until the file release/<role> appears, then succeeds. */
  gated: `#!/bin/sh
role=$(sed -n 's/^# Detached sub-agent: \\([^ ]*\\) for .*$/\\1/p')
n=0
while [ ! -f "release/$role" ]; do
  n=$((n + 1))
  echo "tick $n"
  sleep 0.2
done
echo "released"
exit 0
`,
  /** A slice: writes src/<role>.txt in its working folder (its worktree) and returns ok. */
  slice: `#!/bin/sh
role=$(sed -n 's/^# Detached sub-agent: \\([^ ]*\\) for \\(.*\\)$/\\1/p' | head -n 1)
mkdir -p src
echo "written by $role" > "src/$role.txt"
echo "{\\"role\\":\\"$role\\",\\"rid\\":\\"r1\\",\\"status\\":\\"ok\\",\\"artefacts\\":[],\\"warnings\\":[]}"
exit 0
`,
  /** A slice that rewrites line 2 of src/shared.txt with its role: two of them overlap. */
  clash: `#!/bin/sh
role=$(sed -n 's/^# Detached sub-agent: \\([^ ]*\\) for \\(.*\\)$/\\1/p' | head -n 1)
printf 'one\\n%s\\nthree\\n' "$role" > src/shared.txt
echo "{\\"role\\":\\"$role\\",\\"rid\\":\\"r1\\",\\"status\\":\\"ok\\",\\"artefacts\\":[],\\"warnings\\":[]}"
exit 0
`,
  /** A slice that commits its file inside its worktree (it must not) and adds one more uncommitted. */
  commits: `#!/bin/sh
role=$(sed -n 's/^# Detached sub-agent: \\([^ ]*\\) for \\(.*\\)$/\\1/p' | head -n 1)
mkdir -p src
echo "committed by $role" > "src/$role.txt"
git add "src/$role.txt" && git commit -q -m "slice $role commits"
echo "left uncommitted by $role" > "src/$role-extra.txt"
exit 0
`,
  /** claude's JSON result listing a refused tool call; exits 0 as claude does. */
  refused: `#!/bin/sh
cat > /dev/null
echo '{"type":"result","subtype":"success","is_error":false,"result":"I could not write the file.","permission_denials":[{"tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"touch hello.txt"}}]}'
exit 0
`,
  /** codex's JSONL for a model API that answered 503, then exit 1. */
  "turn-failed": `#!/bin/sh
cat > /dev/null
echo '{"type":"turn.started"}'
echo '{"type":"error","message":"unexpected status 503 Service Unavailable: overloaded"}'
echo '{"type":"turn.failed","error":{"message":"unexpected status 503 Service Unavailable: overloaded"}}'
exit 1
`,
  /** gemini's stream-json with a return JSON that says blocked, exit 0. */
  blocked: String.raw`#!/bin/sh
head=$(sed -n 's/^# Detached sub-agent: \([^ ]*\) for \(.*\)$/\1 \2/p')
role=$(echo "$head" | cut -d' ' -f1)
rid=$(echo "$head" | cut -d' ' -f2)
printf '{"type":"message","role":"assistant","content":"%s","delta":true}\n' "{\\\"role\\\":\\\"$role\\\",\\\"rid\\\":"
printf '{"type":"message","role":"assistant","content":"%s","delta":true}\n' "\\\"$rid\\\",\\\"status\\\":\\\"blocked\\\",\\\"blockedReason\\\":\\\"needs a database\\\"}"
echo '{"type":"result","status":"success"}'
exit 0
`,
  /** No credentials: says so on stderr before any structured output, exit 1. */
  "no-auth": `#!/bin/sh
cat > /dev/null
echo "Error: not logged in. Run the login command or set an API key." >&2
exit 1
`,
  /** Takes its prompt as arguments (opencode's form) and records them. */
  args: `#!/bin/sh
out="$PWD/.peaks/_runtime/$PEAKS_SESSION_ID/fake"
mkdir -p "$out"
printf '%s\\n' "$@" > "$out/args-$$.txt"
echo "done"
exit 0
`,
};

export type Script = keyof typeof SCRIPTS;

/** Writes fake vendors (`{claude: "ok"}`) into `<root>/bin`; returns the folder. */
export async function fakeVendors(root: string, vendors: Record<string, Script>): Promise<string> {
  const bin = join(root, "bin");
  await Deno.mkdir(bin, { recursive: true });
  for (const [name, script] of Object.entries(vendors)) {
    await writeText(join(bin, name), SCRIPTS[script]);
    await Deno.chmod(join(bin, name), 0o755);
  }
  return bin;
}

/** The environment of a detached test: the fakes first on PATH, short grace and drain bounds. */
export function detachedEnv(bin: string, extra: Record<string, string> = {}) {
  return {
    PATH: `${bin}:${Deno.env.get("PATH") ?? ""}`,
    PEAKS_DETACHED_KILL_GRACE_MS: "300",
    PEAKS_DETACHED_DRAIN_MS: "500",
    CLAUDECODE: "1",
    ...extra,
  };
}

export function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  deadlineMs = DEADLINE_MS,
): Promise<T> {
  return pollUntil(what, probe, deadlineMs, 50);
}

export interface DetachedRun {
  result: RunResult;
  recordPath: string;
  runDir: string;
}

/** `sub-agent dispatch <role> --mode detached ...`; asserts success and returns the paths. */
export async function dispatchDetached(
  cwd: string,
  env: Record<string, string>,
  role: string,
  extra: string[],
): Promise<DetachedRun> {
  const result = await runPeaks(
    ["sub-agent", "dispatch", role, "--mode", "detached", ...extra, "--json"],
    { cwd, env },
  );
  assert(result.code === 0, `${result.stdout}\n${result.stderr}`);
  return {
    result,
    recordPath: join(cwd, result.json.data.dispatchRecordPath),
    runDir: join(cwd, result.json.data.detached.runDir),
  };
}

// deno-lint-ignore no-explicit-any
export async function readJsonFile(path: string): Promise<any> {
  return JSON.parse(await Deno.readTextFile(path));
}

/** Waits until exit.json exists and the pid file is gone; returns exit.json. */
// deno-lint-ignore no-explicit-any
export async function waitForExit(runDir: string): Promise<any> {
  await waitFor(
    `the end of ${runDir}`,
    async () => await exists(join(runDir, "exit.json")) && !(await exists(join(runDir, "pid"))),
  );
  return await readJsonFile(join(runDir, "exit.json"));
}

export async function supervisorPid(runDir: string): Promise<number> {
  const text = await waitFor("the pid file", async () => {
    const raw = await Deno.readTextFile(join(runDir, "pid")).catch(() => "");
    return raw.trim() || undefined;
  });
  return Number(text);
}

/** The fake's own files under .peaks/_runtime/<sid>/fake/. */
export async function fakeFiles(root: string, sid: string, prefix: string): Promise<string[]> {
  const dir = join(root, ".peaks", "_runtime", sid, "fake");
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name.startsWith(prefix)) found.push(join(dir, entry.name));
  }
  return found.sort();
}
