/**
 * The swarm plan's rules, free of I/O so they are tested directly: which
 * members a request type gets, when UI joins (project scan or a frontend
 * keyword in the PRD), which modes decide alone, and what each choice does.
 */
import type { PresenceMode } from "../presence/presence.ts";
import type { RequestType } from "../request/file.ts";
import { historySpan } from "../request/history.ts";
import type { SwarmChoice, SwarmRole } from "./plan_file.ts";

/** Matched as substrings. */
export const CHINESE_KEYWORDS = ["页面", "组件", "表单", "弹窗", "表格", "样式", "布局", "交互"];
/**
 * Matched as whole words, ignoring case. A word ends at anything that is not
 * a Latin letter, digit or underscore, so `新增UI页面` has UI while `GUI` and
 * `pages` do not.
 */
export const ENGLISH_KEYWORDS = [
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
];
export const FRONTEND_KEYWORDS = [...CHINESE_KEYWORDS, ...ENGLISH_KEYWORDS];

const ENGLISH_PATTERNS = ENGLISH_KEYWORDS.map((word) =>
  [
    word,
    new RegExp(`(?<![\\p{Script=Latin}\\p{N}_])${word}(?![\\p{Script=Latin}\\p{N}_])`, "iu"),
  ] as const
);

/** The frontend keywords the text contains, in list order. */
export function matchKeywords(text: string): string[] {
  const found: string[] = [];
  for (const word of CHINESE_KEYWORDS) if (text.includes(word)) found.push(word);
  for (const [word, pattern] of ENGLISH_PATTERNS) if (pattern.test(text)) found.push(word);
  return found;
}

/** Headings of what the request leaves out: a UI word there is not a UI goal. */
const EXCLUDED_SECTION = /^(non[- ]?goals?|out[- ]of[- ]scope|not in scope|非目标|不做|不在范围)/i;

/** The lines of `lines` outside its non-goal sections (each runs to the next heading as high). */
function withoutNonGoals(lines: string[]): string[] {
  const kept: string[] = [];
  let skipping = 0;
  for (const line of lines) {
    const heading = /^(#{1,6})\s+(.*)$/.exec(line.trim());
    if (heading) {
      const level = heading[1].length;
      if (skipping && level > skipping) continue;
      skipping = EXCLUDED_SECTION.test(heading[2].replace(/[*_`:]/g, "").trim()) ? level : 0;
      if (skipping) continue;
    } else if (skipping) continue;
    kept.push(line);
  }
  return kept;
}

/**
 * The PRD text the keywords are looked for in: the body without peaks' state history and without
 * its non-goals ("Non-goals", "Out of scope"): UI joins for what the request does, not for what it
 * says it leaves alone.
 */
export function prdSearchText(body: string): string {
  const lines = body.split("\n");
  const span = historySpan(lines);
  const own = span ? [...lines.slice(0, span.start), ...lines.slice(span.end + 1)] : lines;
  return withoutNonGoals(own).join("\n");
}

export const SKIPPED_TYPES: readonly RequestType[] = ["config", "docs", "chore"];

/** The members a request gets before any choice; undefined when its type skips the swarm. */
export function plannedRoles(type: RequestType, uiJoins: boolean): SwarmRole[] | undefined {
  if (SKIPPED_TYPES.includes(type)) return undefined;
  return uiJoins ? ["ui", "rd-planning", "qa-test-cases"] : ["rd-planning", "qa-test-cases"];
}

/** full-auto, 24h and swarm decide alone; assisted and strict let the user choose. */
export function modeDecidesAlone(mode: PresenceMode): boolean {
  return mode === "full-auto" || mode === "24h" || mode === "swarm";
}

export interface Shape {
  subAgents: SwarmRole[];
  /** `to` runs after `from`. */
  edges: { from: SwarmRole; to: SwarmRole }[];
}

/**
 * full keeps every planned member in parallel, and when the user chose it (`chosen`) it is
 * UI + RD + QA whatever the frontend signals said; backend-only drops UI; sequential chains RD → QA.
 */
export function applyChoice(
  roles: SwarmRole[],
  choice: SwarmChoice,
  options: { chosen?: boolean } = {},
): Shape {
  switch (choice) {
    case "full":
      return {
        subAgents: options.chosen && !roles.includes("ui") ? ["ui", ...roles] : roles,
        edges: [],
      };
    case "backend-only":
      return { subAgents: roles.filter((r) => r !== "ui"), edges: [] };
    case "sequential":
      return {
        subAgents: ["rd-planning", "qa-test-cases"],
        edges: [{ from: "rd-planning", to: "qa-test-cases" }],
      };
  }
}

export const CHOICE_SUMMARY: Record<SwarmChoice, string> = {
  full: "Full: UI design + RD planning + QA test cases, in parallel",
  "backend-only": "Backend-only: RD planning + QA test cases in parallel, no UI design",
  sequential: "Sequential: RD planning first, then QA test cases; no UI design",
};
