/**
 * Every walk `deno task walk` knows: the single requests of scenarios.ts, the session's bugfix with a
 * skipped UI and its sliced feature with a conflict, the login case, the session that takes three
 * requests through one project, and the walks that fail today only for a pending product change.
 */
import { join } from "../../lib/infra/std.ts";
import { FEATURE_PRD, requireMerged, type Scenario, SCENARIOS, write } from "./scenarios.ts";

const LIST_BUG_PRD = `# PRD 005-members-page-offset: The members page misses the first member

Type: bugfix

## Background

The members page asks the API for offset 0 and shows the list from the second member on.

## Goals

- The members page shows every member, the first one included.

## Non-goals

- A new page layout.

## User stories

- As a visitor of the members page, I want to see every member, so that nobody is left out.

## Acceptance criteria

- A1: GET /api/members?offset=0&limit=2 returns Ada and Grace.
- A2: the members page lists Ada first.

## Open questions

- none
`;

const SEARCH_PRD = `# PRD 006-member-search: Search members by name

Type: feature

## Background

With more members the list gets long; people ask to find a member by name.

## Goals

- A search box on the members page filters the list by name.
- An API endpoint answers the search.

## Non-goals

- Searching by role.

## User stories

- As a team member, I want to type part of a name, so that I find a colleague quickly.

## Acceptance criteria

- A1: GET /api/members/search?q=ad returns Ada only.
- A2: typing "gr" in the search box shows Grace only.
- A3: an empty query shows every member.

## Open questions

- none
`;

const SEARCH_CLIENT = (by: string) =>
  `// search client (${by})\nexport async function searchMembers(q: string) {\n  const res = await fetch(\`/api/members/search?q=\${encodeURIComponent(q)}\`);\n  return await res.json();\n}\n`;

/** The bugfix of the session: a page is named in the goals, UI joins and finds nothing to design. */
const LIST_BUGFIX: Scenario = {
  name: "bugfix-ui-skipped",
  rid: "005-members-page-offset",
  type: "bugfix",
  mode: "full-auto",
  title: "Members page misses the first member",
  prd: LIST_BUG_PRD,
  ui: true,
  uiOutcome: {
    status: "skipped",
    reason: "no design change: the page shows what the API returns; the fix is in the API",
  },
  verdicts: ["pass"],
  allowWarnings: [],
  setup: SCENARIOS[1].setup,
  // The new conversation resumes with RD's spec locked and its dispatch still to come.
  resumeAfter: "rd:spec-locked",
  change: async (root) => {
    const path = join(root, "server", "members.ts");
    const text = await Deno.readTextFile(path);
    await Deno.writeTextFile(
      path,
      text.replace(
        "members.slice(offset + 1, offset + 1 + limit)",
        "members.slice(offset, offset + limit)",
      ),
    );
    return ["server/members.ts"];
  },
};

/** The sliced feature of the session: two slices of level 1 both write the search client. */
const SEARCH: Scenario = {
  name: "sliced-conflict",
  rid: "006-member-search",
  type: "feature",
  mode: "full-auto",
  title: "Search members by name",
  prd: SEARCH_PRD,
  ui: true,
  // QA finds the empty query broken once: one repair round.
  verdicts: ["return-to-rd", "pass"],
  finding: "an empty query shows no member",
  // Level 2 builds on level 1's merged, uncommitted change: peaks makes its worktrees.
  allowWarnings: ["HOST_ISOLATION_SKIPPED", "REWORK_ROUND"],
  hostLevel1: true,
  conflict: { slice: "box", choose: "keepSlice" },
  slices: {
    nodes: [
      {
        id: "api",
        owns: ["server/search.ts", "src/lib/searchClient.ts"],
        task: "Write the search endpoint and its client as the tech doc says.",
        change: async (dir) => {
          await write(
            join(dir, "server", "search.ts"),
            'import { app } from "./members.ts";\n\napp.get("/api/members/search", (_req, res) => res.json([]));\n',
          );
          await write(join(dir, "src", "lib", "searchClient.ts"), SEARCH_CLIENT("api slice"));
          return ["server/search.ts", "src/lib/searchClient.ts"];
        },
      },
      {
        id: "box",
        owns: ["src/components/SearchBox.tsx"],
        task: "Write the search box as the tech doc and the UI draft say.",
        change: async (dir) => {
          await write(
            join(dir, "src", "components", "SearchBox.tsx"),
            'import { searchMembers } from "../lib/searchClient";\n\nexport function SearchBox() {\n  return <input type="search" onInput={(e) => searchMembers(e.currentTarget.value)} />;\n}\n',
          );
          await write(join(dir, "src", "lib", "searchClient.ts"), SEARCH_CLIENT("box slice"));
          return ["src/components/SearchBox.tsx", "src/lib/searchClient.ts"];
        },
      },
      {
        id: "wire",
        owns: ["src/pages/MembersPage.tsx"],
        task: "Put the search box on the members page as the tech doc says.",
        change: async (dir) => {
          await requireMerged(dir, "src/components/SearchBox.tsx");
          const page = join(dir, "src", "pages", "MembersPage.tsx");
          await Deno.writeTextFile(
            page,
            `import { SearchBox } from "../components/SearchBox";\n${await Deno.readTextFile(
              page,
            )}`,
          );
          return ["src/pages/MembersPage.tsx"];
        },
      },
    ],
    edges: [{ from: "api", to: "wire" }, { from: "box", to: "wire" }],
  },
  // The RD sub-agent of the repair round fixes the empty query in the merged client.
  change: async (root, round) => {
    if (round === 0) return [];
    const path = join(root, "src", "lib", "searchClient.ts");
    const text = await Deno.readTextFile(path);
    await Deno.writeTextFile(
      path,
      text.replace(
        "export async function searchMembers(q: string) {\n",
        'export async function searchMembers(q: string) {\n  if (!q) return await (await fetch("/api/members")).json();\n',
      ),
    );
    return ["src/lib/searchClient.ts"];
  },
};

/** A feature whose UI sub-agent meets a login page: it ends blocked, the user logs in. */
const LOGIN: Scenario = {
  name: "login",
  rid: "007-admin-members",
  type: "feature",
  mode: "full-auto",
  title: "Member profile page behind the admin login",
  prd: FEATURE_PRD.replace("001-profile-page", "007-admin-members"),
  ui: true,
  uiOutcome: { status: "blocked", reason: "login-required" },
  verdicts: ["pass"],
  allowWarnings: [],
  change: (root, round) => SCENARIOS[0].change(root, round),
};

/** One project, one session: the requests in order (the user commits each finished change). */
export const SESSION: Scenario[] = [SCENARIOS[0], LIST_BUGFIX, SEARCH];

/**
 * Walks that fail today only because a product change they check is still pending. `deno task
 * walk` and walk_test.ts report them as expected failures (a pass is reported too, so the entry
 * can go); take a name off this list once its fix is in.
 */
export const EXPECTED_FAILURES: Record<string, string> = {};

/** Every walk `deno task walk` runs by default: the single requests, the login case, the session. */
export const WALKS = [...SCENARIOS.map((s) => s.name), "login", "session"];

export function scenario(name: string): Scenario {
  const found = [...SCENARIOS, LIST_BUGFIX, SEARCH, LOGIN].find((s) => s.name === name);
  if (!found) throw new Error(`no scenario ${name}`);
  return found;
}

/**
 * The workflow's milestones in the order the scenario must pass them: the transitions and the
 * dispatches, with the repair loop once per returned verdict. The walker fails on the first
 * milestone out of this order, which is how a reordered nextAction shows.
 */
export function expectedMilestones(s: Scenario): string[] {
  const swarm = s.type === "docs" ? ["swarm:plan", "rd:init"] : [
    "swarm:plan",
    "swarm:dispatch",
    ...(s.uiOutcome?.status === "blocked" ? ["user:logged-in", "ui:dispatch"] : []),
    "swarm:converge",
    // A skipped UI is a skip: no design to lock.
    ...(s.ui && s.uiOutcome?.status !== "skipped" ? ["ui:direction-locked", "ui:handed-off"] : []),
  ];
  const qaStart = s.type === "docs" ? ["qa:init", "qa:running"] : ["qa:running"];
  const rounds: string[] = [];
  s.verdicts.forEach((verdict, round) => {
    if (round > 0) rounds.push("rd:implemented", "rd:dispatch", "rd:qa-handoff", "qa:running");
    rounds.push("qa:dispatch", `qa:verdict-issued:${verdict}`);
  });
  // Each level of slices goes out as one dispatch; then RD reviews the merged change.
  const levels = s.slices
    ? sliceLevels(s.slices).flatMap((ids) => [
      "rd:slices",
      ...(s.conflict && ids.includes(s.conflict.slice) ? ["rd:slice-conflict"] : []),
    ])
    : [];
  return [
    "prd:init",
    "prd:confirmed-by-user",
    "prd:handed-off",
    ...swarm,
    "rd:spec-locked",
    ...levels,
    "rd:dispatch",
    "rd:implemented",
    "rd:qa-handoff",
    ...qaStart,
    ...rounds,
    "sc:init",
    "sc:impact-recorded",
    "sc:boundary-recorded",
    "sc:handed-off",
    "txt:dispatch",
    "txt:finalized",
  ];
}

/** The slices' levels: a slice's level is one more than its deepest predecessor's. */
function sliceLevels(slices: NonNullable<Scenario["slices"]>): string[][] {
  const level = new Map<string, number>();
  const of = (id: string): number => {
    if (!level.has(id)) {
      const before = slices.edges.filter((e) => e.to === id).map((e) => of(e.from));
      level.set(id, 1 + Math.max(0, ...before));
    }
    return level.get(id)!;
  };
  const out: string[][] = [];
  for (const node of slices.nodes) (out[of(node.id) - 1] ??= []).push(node.id);
  return out;
}
