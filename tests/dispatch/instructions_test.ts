import { assert, assertEquals, assertMatch } from "@std/assert";
import {
  COMMIT_POLICY_TITLE,
  composePrompt,
  needsMcpCheck,
} from "../../lib/dispatch/instructions.ts";
import type { RuntimeArgs } from "../../lib/dispatch/runtime_args.ts";
import { pointerPrompt, toolDescription } from "../../lib/dispatch/tool_call.ts";
import { pickVendor } from "../../lib/dispatch/ide_not_supported.ts";
import { keyGlob } from "../../lib/batch/channel_access.ts";
import { ideById } from "../../lib/hosts/registry.ts";
import { shellWords } from "../support/next_actions.ts";

function args(overrides: Partial<RuntimeArgs> = {}): RuntimeArgs {
  return {
    projectRoot: "/work/app",
    sessionId: "2026-11-29-session-a1b2c3",
    requestId: "001-login",
    requestIdGenerated: false,
    batchId: "batch-7",
    role: "rd-planning",
    ide: "claude-code",
    mode: "full-auto",
    requestType: "feature",
    projectScan: { path: ".peaks/project-scan/project-scan.md", exists: true },
    existingSystem: null,
    frontendOnly: false,
    frontendKeywordHit: true,
    markerPath: ".peaks/_runtime/2026-11-29-session-a1b2c3/system/sub-agent-rd-planning.json",
    heartbeatIntervalSec: 20,
    declaredArtifacts: [],
    ...overrides,
  };
}

const RECORD = ".peaks/_sub_agents/2026-11-29-session-a1b2c3/dispatch-001-login-rd-planning-x.json";

Deno.test("the runtime block comes first, the caller's prompt second, the fixed blocks after", () => {
  const prompt = composePrompt(args(), RECORD, "CALLER TEXT");
  const order = [
    "## Runtime arguments",
    "CALLER TEXT",
    "## Heartbeats (mandatory)",
    "## Completion contract",
    "## Hard prohibitions",
    COMMIT_POLICY_TITLE,
    "## Shared channel (batch batch-7)",
  ].map((marker) => prompt.indexOf(marker));
  assert(order.every((i, k) => i >= 0 && (k === 0 || i > order[k - 1])), String(order));
  assert(prompt.startsWith("## Runtime arguments\n"));
  for (
    const fact of [
      "- Mode: full-auto",
      "- Request type: feature",
      "- frontendOnly: false; frontendKeywordHit: true",
      `- Dispatch record: ${RECORD}`,
      "sub-agent-rd-planning.json",
    ]
  ) assert(prompt.includes(fact), fact);
});

Deno.test("the blocks name the real record, cadence, batch and the no-commit rule", () => {
  const prompt = composePrompt(args(), RECORD, "x");
  assert(
    prompt.includes(
      `peaks sub-agent heartbeat --record ${RECORD} --project /work/app --status running`,
    ),
  );
  // An LLM agent cannot keep a clock: it beats between its steps.
  assert(prompt.includes("Beat between your steps"));
  assert(!/every \d+ ?s(econds)?\b/.test(prompt), "no cadence an agent cannot keep");
  assert(prompt.includes("--status done --progress 100"));
  assert(prompt.includes("peaks sub-agent shared-read --batch batch-7 --project /work/app --json"));
  assert(prompt.includes("--key rd-planning.completed"));
  assert(prompt.includes("--key rd-planning.found-blocker"));
  assert(prompt.includes('"blocked-by-orchestrator-policy"'));
  assert(prompt.includes("`git commit`, `git push`, `git tag`, `git checkout -b`"));
  assert(prompt.includes("Do not call Skill(...)"));
  assert(prompt.includes("`peaks skill presence:set`"));
  assert(!prompt.includes("## MCP tool check"), "no MCP check in claude-code");
});

Deno.test("artefacts are the registered peaks files, not product code; only a slice names its worktree", () => {
  const plain = composePrompt(args({ role: "rd" }), RECORD, "x");
  assertMatch(
    plain,
    /artefacts lists the\s+files you registered under \.peaks\/ \(step 1\), never product code/,
  );
  assert(!plain.includes('"worktree"'));
  const slice = composePrompt(args({ role: "rd", slice: { node: "api", read: [] } }), RECORD, "x");
  const line = slice.split("\n").find((l) => l.trim().startsWith('{"role":'))!;
  assert("worktree" in JSON.parse(line.trim()), line);
});

Deno.test("parallel slices of one role each have their own channel keys; a slice sees peaks' files by absolute path", () => {
  const root = "/srv/shop";
  const slice = (node: string) =>
    composePrompt(
      args({
        projectRoot: root,
        role: "rd",
        slice: { node, read: [`${root}/.peaks/_runtime/s/rd/tech-doc-r1.md`] },
      }),
      RECORD,
      "x",
    );
  const a = slice("api");
  assert(a.includes("--key rd.api.completed"));
  assert(a.includes("--key rd.api.found-blocker"));
  assert(slice("page").includes("--key rd.page.completed"));
  assert(keyGlob("*.completed").test("rd.api.completed"));
  assert(a.includes(`- Dispatch record: ${root}/${RECORD}`));
  assert(a.includes(`--record ${root}/${RECORD}`));
  assertMatch(a, /## Read first[^\n]*\n- \/srv\/shop\/\.peaks\/_runtime\/s\/rd\/tech-doc-r1\.md/);
  // UI slices keep UI's blocker key, with the node.
  const ui = composePrompt(args({ role: "ui", slice: { node: "p", read: [] } }), RECORD, "x");
  assert(ui.includes("--key ui.p.design-blocker"));
});

Deno.test("UI posts design blockers under ui.design-blocker", () => {
  const prompt = composePrompt(args({ role: "ui" }), RECORD, "x");
  assert(prompt.includes("--key ui.design-blocker"));
  assert(prompt.includes("--key ui.completed"));
});

Deno.test("the MCP self-check is added for rd/qa/ui/txt roles outside claude-code only", () => {
  assert(needsMcpCheck("qa-business-api", "trae"));
  assert(needsMcpCheck("txt", "cursor"));
  assert(!needsMcpCheck("general-purpose", "trae"));
  assert(!needsMcpCheck("rd", "claude-code"));
  const prompt = composePrompt(args({ ide: "trae" }), RECORD, "x");
  assert(prompt.includes("## MCP tool check (IDE: trae)"));
  assert(prompt.includes('"mcp-missing:<server>"'));
  assert(!prompt.includes("claude mcp add"));
});

Deno.test("the MCP self-check names each host's own tool prefix and install command", () => {
  const cases: [string, string, string][] = [
    ["gemini", "`mcp_<server>_<tool>`", "gemini mcp add -s user <server> <command>"],
    ["qwen", "`mcp__<server>__<tool>", "qwen mcp add -s user <server> <command>"],
    ["copilot", "`<server>-<tool>`", "copilot mcp add <server> -- <command>"],
    ["opencode", "`<server>_<tool>`", "opencode mcp add <server> -- <command>"],
    ["codex", "`mcp__<server> namespace", "codex mcp add <server> -- <command>"],
  ];
  for (const [ide, prefix, add] of cases) {
    const prompt = composePrompt(args({ ide }), RECORD, "x");
    assert(prompt.includes(prefix), `${ide}: ${prefix}`);
    assert(prompt.includes(add), `${ide}: ${add}`);
  }
});

Deno.test("a Gemini CLI sub-agent is told to finish with complete_task; others are not", () => {
  assert(composePrompt(args({ ide: "gemini" }), RECORD, "x").includes("complete_task"));
  assert(!composePrompt(args({ ide: "opencode" }), RECORD, "x").includes("complete_task"));
});

Deno.test("legacy projects point at the existing-system notes; generated rids say so", () => {
  const prompt = composePrompt(
    args({
      existingSystem: ".peaks/_runtime/s/system/existing-system.md",
      requestIdGenerated: true,
    }),
    RECORD,
    "x",
  );
  assert(prompt.includes("- Existing system: .peaks/_runtime/s/system/existing-system.md"));
  assertMatch(prompt, /- Request id: 001-login \(generated by peaks/);
});

Deno.test("the pointer prompt is one short command naming the record file", () => {
  const text = pointerPrompt("dispatch-001-rd-mil3k2xa-abcd.json");
  assertEquals(
    text,
    "Run `peaks sub-agent brief --record dispatch-001-rd-mil3k2xa-abcd.json` and follow it.",
  );
});

Deno.test("detached runs prefer the host's own vendor, else the first installed", () => {
  assertEquals(pickVendor(ideById("codex")!, ["claude", "codex"]), "codex");
  assertEquals(pickVendor(ideById("gemini")!, ["claude", "codex"]), "claude");
  assertEquals(pickVendor(ideById("zcode")!, []), undefined);
});

Deno.test("key globs match whole keys with * and ?", () => {
  assert(keyGlob("*.completed").test("rd-planning.completed"));
  assert(!keyGlob("*.completed").test("rd.completed.x"));
  assert(keyGlob("rd?.x").test("rd1.x"));
  assert(!keyGlob("rd.x").test("rdXx"));
});

Deno.test("command lines in nextActions split back into the same words", () => {
  assertEquals(shellWords("peaks a --x 'it'\\''s here' b"), [
    "peaks",
    "a",
    "--x",
    "it's here",
    "b",
  ]);
});

Deno.test("a DAG node whose id is not its role is named in the tool call's description", () => {
  assertEquals(toolDescription("rd", "001-login"), "rd for rid=001-login");
  assertEquals(toolDescription("ui", "001-login", "ui"), "ui for rid=001-login");
  const [api, page] = ["api", "page"].map((node) => toolDescription("rd", "001-login", node));
  assertEquals([api, page], ["rd:api for rid=001-login", "rd:page for rid=001-login"]);
});
