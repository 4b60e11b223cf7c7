/**
 * headroom-ai must load only for --use-headroom: no command, and not the
 * entry point, may reach it through static imports, and the network is
 * touched only when compression is asked for.
 */
import { assert, assertEquals, assertMatch } from "@std/assert";
import { baseEnv, CONFIG, ENTRY, REPO, type RunResult, scriptArgs } from "../../support/cli.ts";
import { tempDir, writeText } from "../../support/temp.ts";
import { COMMANDS } from "../../../lib/cli/table.ts";
import { join } from "../../../lib/infra/std.ts";

interface Dependency {
  specifier: string;
  code?: { specifier: string };
  isDynamic?: boolean;
}

interface GraphModule {
  specifier: string;
  kind?: string;
  npmPackage?: string;
  dependencies?: Dependency[];
}

interface Graph {
  modules: Map<string, GraphModule>;
  redirects: Record<string, string>;
}

async function moduleGraph(): Promise<Graph> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--config", CONFIG, ENTRY],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout));
  const modules = new Map<string, GraphModule>();
  for (const module of info.modules as GraphModule[]) modules.set(module.specifier, module);
  return { modules, redirects: info.redirects };
}

function resolved(graph: Graph, specifier: string): string {
  return graph.redirects[specifier] ?? specifier;
}

/** Every module reachable from `root` through static (non-dynamic) code imports. */
function staticClosure(graph: Graph, root: string): Set<string> {
  const seen = new Set<string>();
  const stack = [root];
  while (stack.length) {
    const specifier = resolved(graph, stack.pop()!);
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    for (const dep of graph.modules.get(specifier)?.dependencies ?? []) {
      if (dep.code && !dep.isDynamic) stack.push(dep.code.specifier);
    }
  }
  return seen;
}

function isHeadroom(graph: Graph, specifier: string): boolean {
  return graph.modules.get(specifier)?.npmPackage?.startsWith("headroom-ai@") === true ||
    specifier.includes("headroom-ai@");
}

const fileUrl = (path: string) => new URL(`file://${join(REPO, path)}`).href;

Deno.test("no static import path leads from the entry point or any command to headroom-ai", async () => {
  const graph = await moduleGraph();
  const all = [...graph.modules.keys()];
  assert(all.some((s) => isHeadroom(graph, s)), "the graph holds headroom-ai (lazily)");

  const entry = staticClosure(graph, fileUrl("peaks.ts"));
  assertEquals([...entry].filter((s) => isHeadroom(graph, s)), []);
  // --version's path loads no npm package at all.
  assertEquals([...entry].filter((s) => graph.modules.get(s)?.kind === "npm"), []);

  const table = graph.modules.get(fileUrl("lib/cli/table.ts"))!;
  const commandModules = (table.dependencies ?? []).filter((d) => d.isDynamic && d.code);
  assertEquals(commandModules.length, COMMANDS.length, "one lazy module per command");
  for (const dep of commandModules) {
    const reached = [...staticClosure(graph, dep.code!.specifier)];
    assertEquals(reached.filter((s) => isHeadroom(graph, s)), [], dep.specifier);
  }

  const importers = [...graph.modules.values()].flatMap((module) =>
    (module.dependencies ?? [])
      .filter((d) => d.code && isHeadroom(graph, resolved(graph, d.code.specifier)))
      .map((d) => ({ from: module.specifier, dynamic: d.isDynamic === true }))
  );
  assertEquals(importers, [{
    from: fileUrl("lib/budget/_headroom.ts"),
    dynamic: true,
  }]);
});

Deno.test("the status line loads no zod: its module and the flag parser reach no npm package but std", async () => {
  const graph = await moduleGraph();
  const reached = new Set([
    ...staticClosure(graph, fileUrl("lib/commands/statusline/render.ts")),
    ...staticClosure(graph, fileUrl("lib/cli/parse.ts")),
  ]);
  const npm = [...reached].filter((s) =>
    graph.modules.get(s)?.kind === "npm" || s.startsWith("npm:")
  );
  assertEquals(npm.filter((s) => !s.includes("deno-std")), []);
});

/**
 * The commands an agent calls many times per task: their modules reach no zod through static
 * imports (a state file goes through its shape first, zod only for what the shape doubts), since
 * loading zod alone costs more than the rest of such a call's modules.
 */
const HOT_COMMANDS = [
  "lib/commands/sub-agent/heartbeat.ts",
  "lib/commands/sub-agent/share.ts",
  "lib/commands/sub-agent/shared_read.ts",
  "lib/commands/sub-agent/dispatch.ts",
  "lib/fanout/fanout.ts",
  "lib/commands/swarm/slices.ts",
  "lib/commands/sub-agent/brief.ts",
  "lib/commands/sub-agent/finalize.ts",
  "lib/commands/sub-agent/status.ts",
  "lib/commands/sub-agent/list.ts",
  "lib/commands/sub-agent/artifact.ts",
  "lib/commands/skill/presence.ts",
  "lib/commands/skill/presence_set.ts",
  "lib/commands/session/info.ts",
  "lib/commands/request/show.ts",
  "lib/commands/request/lint.ts",
  "lib/commands/request/list.ts",
  "lib/commands/request/transition.ts",
  "lib/commands/context/check.ts",
  "lib/commands/swarm/plan.ts",
  "lib/commands/swarm/converge.ts",
  "lib/commands/hooks/run.ts",
];

Deno.test("the hot commands reach no zod through static imports", async () => {
  const graph = await moduleGraph();
  for (const command of HOT_COMMANDS) {
    const reached = staticClosure(graph, fileUrl(command));
    assert(reached.size > 1, `${command} is not in the graph`);
    const zod = [...reached].filter((s) => s.endsWith("/lib/infra/zod.ts") || s.includes("zod@"));
    assertEquals(zod, [], `${command} reaches zod`);
  }
});

Deno.test("peaks hooks run loads the records, the workflow and the host registry only for the events that need them", async () => {
  const graph = await moduleGraph();
  const reached = [...staticClosure(graph, fileUrl("lib/commands/hooks/run.ts"))]
    .filter((s) => s.startsWith("file:"))
    .map((s) => s.slice(fileUrl("").length));
  const heavy = reached.filter((path) =>
    /^lib\/(workflow|request|session|dispatch|statusline)\//.test(path) ||
    ["lib/hosts/registry.ts", "lib/hooks/records.ts", "lib/hooks/resume.ts"].includes(path)
  );
  assertEquals(heavy, []);
  // A shell call's hook (every Bash call in Claude Code) reads a few dozen files, not the CLI.
  assert(reached.length <= 40, `${reached.length} modules: ${reached.join(", ")}`);
});

async function runWith(denoFlags: string[], args: string[], cwd: string, env = {}) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: scriptArgs(ENTRY, args, denoFlags),
    cwd,
    env: { ...(await baseEnv({ cwd })), ...env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  let json = undefined;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return {
    code: out.code,
    stdout,
    stderr: new TextDecoder().decode(out.stderr),
    json,
  } as RunResult;
}

Deno.test("--version runs with an empty module cache: no npm package is loaded", async () => {
  await using dir = await tempDir();
  const emptyCache = join(dir.path, "deno-dir");
  await Deno.mkdir(emptyCache);
  const result = await runWith([], ["--version", "--json"], dir.path, { DENO_DIR: emptyCache });
  assertEquals(result.code, 0, result.stderr);
  assertMatch(result.json.data.version, /^\d+\.\d+\.\d+/);
});

Deno.test("with loopback denied only --use-headroom notices: nothing else opens the network", async () => {
  await using dir = await tempDir();
  await writeText(`${dir.path}/prompt.md`, "Check the release notes.\n".repeat(50));
  const deny = ["--deny-net=127.0.0.1,localhost,[::1]"];
  const env = { HEADROOM_BASE_URL: "http://127.0.0.1:8787" };
  const check = ["context", "check", "--prompt-file", "prompt.md", "--ide", "claude-code"];

  const version = await runWith(deny, ["--version"], dir.path, env);
  assertEquals([version.code, version.stderr], [0, ""]);

  const plain = await runWith(deny, [...check, "--json"], dir.path, env);
  assertEquals(plain.code, 0, plain.stderr);
  assertEquals(plain.json.warnings, []);

  const compressed = await runWith(deny, [...check, "--use-headroom", "--json"], dir.path, env);
  assertEquals(compressed.code, 0, compressed.stderr);
  assertEquals(compressed.json.warnings.map((w: { code: string }) => w.code), [
    "HEADROOM_UNAVAILABLE",
  ]);
  assertMatch(compressed.json.warnings[0].reason, /NotCapable/);
});

Deno.test("a dispatch loads the artefact checks only when it declares artefacts", async () => {
  const graph = await moduleGraph();
  for (const command of ["lib/commands/sub-agent/dispatch.ts", "lib/fanout/fanout.ts"]) {
    const reached = [...staticClosure(graph, fileUrl(command))];
    const eager = reached.filter((s) =>
      s.endsWith("/lib/record/artifacts.ts") || s.endsWith("/lib/infra/fs/hash.ts")
    );
    assertEquals(eager, [], `${command} loads the artefact checks eagerly`);
  }
});
