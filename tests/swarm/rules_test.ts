import { assertEquals } from "@std/assert";
import { degradation } from "../../lib/swarm/gate_b.ts";
import {
  applyChoice,
  FRONTEND_KEYWORDS,
  matchKeywords,
  modeDecidesAlone,
  plannedRoles,
  prdSearchText,
} from "../../lib/swarm/plan_rules.ts";

Deno.test("the keyword list is exactly the spec's, Chinese and English", () => {
  assertEquals(FRONTEND_KEYWORDS, [
    "页面",
    "组件",
    "表单",
    "弹窗",
    "表格",
    "样式",
    "布局",
    "交互",
    "UI",
    "UX",
    "page",
    "component",
    "form",
    "modal",
    "table",
    "styling",
    "layout",
    "interaction",
  ]);
});

Deno.test("English keywords match whole words in any case; Chinese ones as substrings", () => {
  const cases: Array<[string, string[]]> = [
    ["Add a login Page with a FORM", ["page", "form"]],
    ["新增登录页面和表单组件", ["页面", "组件", "表单"]],
    ["新增UI页面", ["页面", "UI"]],
    ["ui-kit refresh, new modal.", ["UI", "modal"]],
    ["(table)", ["table"]],
    ["GUI pages with formal forms, a tablet, stylings", []],
    ["platform interactions and layouts", []],
    ["speed up the export job", []],
    ["Interaction design, UX review, component styling", [
      "UX",
      "component",
      "styling",
      "interaction",
    ]],
  ];
  for (const [text, expected] of cases) assertEquals(matchKeywords(text), expected, text);
});

Deno.test("the PRD's state history is not searched for keywords", () => {
  const body = [
    "Speed up exports.",
    "<!-- peaks:history:begin -->",
    "## State history",
    "",
    "- 2026 draft → confirmed-by-user (reason: page review done)",
    "<!-- peaks:history:end -->",
  ].join("\n");
  assertEquals(matchKeywords(prdSearchText(body)), []);
  assertEquals(matchKeywords(body), ["page"]);
});

Deno.test("a UI word in the PRD's non-goals or out-of-scope section does not bring UI in", () => {
  const body = [
    "# PRD 002-race",
    "",
    "## Goals",
    "",
    "Fix the race in the export job on the server.",
    "",
    "## Non-goals",
    "",
    "- No change to the export page.",
    "",
    "### Later",
    "",
    "- A new layout for the report.",
    "",
    "## Out of scope",
    "",
    "- The settings form.",
    "",
    "## Acceptance criteria",
    "",
    "- A1: two exports at once both finish.",
  ].join("\n");
  assertEquals(matchKeywords(prdSearchText(body)), []);
  assertEquals(matchKeywords(body), ["page", "form", "layout"]);
  // A UI word in the goals still counts.
  const goal = body.replace("on the server.", "on the server and its page.");
  assertEquals(matchKeywords(prdSearchText(goal)), ["page"]);
});

Deno.test("types decide the members; config, docs and chore skip the swarm", () => {
  assertEquals(plannedRoles("feature", true), ["ui", "rd-planning", "qa-test-cases"]);
  assertEquals(plannedRoles("refactor", false), ["rd-planning", "qa-test-cases"]);
  assertEquals(plannedRoles("bugfix", false), ["rd-planning", "qa-test-cases"]);
  for (const type of ["config", "docs", "chore"] as const) {
    assertEquals(plannedRoles(type, true), undefined);
  }
});

Deno.test("modes and choices", () => {
  for (const mode of ["full-auto", "24h", "swarm"] as const) {
    assertEquals(modeDecidesAlone(mode), true);
  }
  for (const mode of ["assisted", "strict"] as const) assertEquals(modeDecidesAlone(mode), false);
  const all = ["ui", "rd-planning", "qa-test-cases"] as const;
  assertEquals(applyChoice([...all], "full"), { subAgents: [...all], edges: [] });
  // Chosen by the user, Full is UI + RD + QA even without a frontend signal.
  const backend = ["rd-planning", "qa-test-cases"] as const;
  assertEquals(applyChoice([...backend], "full").subAgents, [...backend]);
  assertEquals(applyChoice([...backend], "full", { chosen: true }).subAgents, [...all]);
  assertEquals(applyChoice([...all], "backend-only"), {
    subAgents: ["rd-planning", "qa-test-cases"],
    edges: [],
  });
  assertEquals(applyChoice([...all], "sequential"), {
    subAgents: ["rd-planning", "qa-test-cases"],
    edges: [{ from: "rd-planning", to: "qa-test-cases" }],
  });
});

Deno.test("the degradation table, row by row", () => {
  const all = ["ui", "rd-planning", "qa-test-cases"] as const;
  const planned = [...all];
  assertEquals(degradation(planned, []), { outcome: "ok", handoffNotes: [] });
  assertEquals(degradation(planned, ["ui"]).outcome, "ui-design-missing");
  assertEquals(degradation(planned, ["rd-planning"]).outcome, "tech-doc-missing");
  assertEquals(degradation(planned, ["qa-test-cases"]).outcome, "qa-test-cases-missing");
  assertEquals(degradation(planned, ["ui", "qa-test-cases"]), {
    outcome: "swarm-degraded-to-sequential",
    handoffNotes: ["swarm-degraded-to-sequential", "ui-design-missing", "qa-test-cases-missing"],
  });
  assertEquals(degradation(planned, [...all]).outcome, "swarm-aborted");
  // "All planned members" wins over "two or more" when only two were planned.
  assertEquals(
    degradation(["rd-planning", "qa-test-cases"], ["rd-planning", "qa-test-cases"]).outcome,
    "swarm-aborted",
  );
});
