/**
 * The requests the literal-agent walker takes through the whole workflow on a copy of the demo's
 * sample project: what the user asks for (the PRD), how the user answers the decision points,
 * and what the RD and QA sub-agents find. Everything else comes from the skill and the envelopes.
 */
import { join } from "../../lib/infra/std.ts";

export type Verdict = "pass" | "return-to-rd" | "blocked";

/** One implementation slice RD planning writes into its slice DAG. */
export interface SliceSpec {
  id: string;
  owns: string[];
  /** The slice's task (the node's prompt). */
  task: string;
  /** The change the slice's sub-agent makes in its worktree (`dir`); returns the files. */
  change: (dir: string) => Promise<string[]>;
}

export interface Scenario {
  name: string;
  rid: string;
  type: "feature" | "bugfix" | "docs";
  /** The mode the user picks when asked. */
  mode: "full-auto" | "swarm";
  title: string;
  /** The PRD body under the front matter (the walker keeps peaks' history block). */
  prd: string;
  /** Prepares the copied project before it is committed (the sample is a frontend app). */
  setup?: (root: string) => Promise<void>;
  /** The product change the RD sub-agent makes, per round (0 first). */
  change: (root: string, round: number) => Promise<string[]>;
  /** QA's verdict per round; the last one is pass. */
  verdicts: Verdict[];
  /** Whether the swarm is expected to include UI. */
  ui: boolean;
  /** What QA found in a returned round (its report says it). */
  finding?: string;
  /**
   * The warning codes this scenario expects peaks to give; any other warning ends the walk.
   * Empty: a clean request warns nothing.
   */
  allowWarnings: string[];
  /** How the UI sub-agent ends its first dispatch when not `ok`: skipped with a reason, or blocked. */
  uiOutcome?: { status: "skipped" | "blocked"; reason: string };
  /** The milestone after which the conversation is lost and a new one resumes from peaks alone. */
  resumeAfter?: string;
  /** A slice that meets a conflict at finalize, and the command of `data.conflicts[]` chosen. */
  conflict?: { slice: string; choose: "keepMain" | "keepSlice" };
  /** Level 1 of the slices runs in the host's own worktrees (a clean main tree in Claude Code). */
  hostLevel1?: boolean;
  /**
   * When RD planning finds the change splits: the slices and their order. `change` is then the
   * RD sub-agent's that reviews the merged slices.
   */
  slices?: { nodes: SliceSpec[]; edges: Array<{ from: string; to: string }> };
}

export async function write(path: string, text: string): Promise<void> {
  await Deno.mkdir(path.replace(/[\\/][^\\/]*$/, ""), { recursive: true });
  await Deno.writeTextFile(path, text);
}

export const FEATURE_PRD = `# PRD 001-profile-page: Member profile page with avatar upload

Type: feature

## Background

Team members only appear as cards in the list; people ask for a page per member.

## Goals

- A profile page per member, reachable from the list.
- Members can upload an avatar image from the profile page.

## Non-goals

- Editing name or role.

## User stories

- As a team member, I want my own page with my photo, so that colleagues recognise me.

## Acceptance criteria

- A1: /members/:id shows the member's name and role; an unknown id shows "not found".
- A2: dropping a PNG or JPEG up to 2 MB on the avatar shows it at once.

## Open questions

- none
`;

const BUGFIX_PRD = `# PRD 002-members-api-offset: The members API skips the first member

Type: bugfix

## Background

GET /api/members?offset=0 returns members from the second one on.

## Goals

- The list endpoint starts at the member the offset names.

## Non-goals

- Changing the response shape.

## User stories

- As an API client, I want offset 0 to return the first member, so that nobody is skipped.

## Acceptance criteria

- A1: GET /api/members?offset=0&limit=2 returns Ada and Grace.
- A2: GET /api/members?offset=2 returns the members from the third on.

## Open questions

- none
`;

const DOCS_PRD = `# PRD 003-readme-setup: Document the local setup

Type: docs

## Background

The README does not say how to run the app or its tests.

## Goals

- The README explains install, dev server and tests.

## Non-goals

- Deployment docs.

## User stories

- As a new contributor, I want the setup steps in the README, so that I start in minutes.

## Acceptance criteria

- A1: the README has a "Getting started" section with the three commands.

## Open questions

- none
`;

const SLICED_PRD = `# PRD 004-member-profile: Member profile page with avatar upload

Type: feature

## Background

Team members only appear as cards in the list; people ask for a page per member with a photo.

## Goals

- A profile page per member, reachable from the list.
- Members can upload an avatar image from the profile page.

## Non-goals

- Editing name or role.

## User stories

- As a team member, I want my own page with my photo, so that colleagues recognise me.

## Acceptance criteria

- A1: /members/:id shows the member's name and role; an unknown id shows "not found".
- A2: dropping a PNG or JPEG up to 2 MB on the avatar uploads it and shows it at once.

## Open questions

- none
`;

/** A file a slice must find in its worktree: what the slices before it in the DAG merged. */
export async function requireMerged(dir: string, rel: string): Promise<void> {
  const found = await Deno.stat(join(dir, rel)).then(() => true, () => false);
  if (!found) throw new Error(`${rel} is not in the worktree ${dir}: a slice before it is missing`);
}

const SERVER = `import express from "express";

const members = [{ id: "1", name: "Ada" }, { id: "2", name: "Grace" }, { id: "3", name: "Linus" }];

export const app = express();

app.get("/api/members", (req, res) => {
  const offset = Number(req.query.offset ?? 0);
  const limit = Number(req.query.limit ?? 20);
  res.json(members.slice(offset + 1, offset + 1 + limit));
});
`;

export const SCENARIOS: Scenario[] = [
  {
    name: "feature",
    rid: "001-profile-page",
    type: "feature",
    mode: "full-auto",
    title: "Member profile page with avatar upload",
    prd: FEATURE_PRD,
    ui: true,
    verdicts: ["pass"],
    allowWarnings: [],
    change: async (root) => {
      await write(
        join(root, "src", "pages", "ProfilePage.tsx"),
        'export function ProfilePage() {\n  return <article className="rounded-lg border p-4" />;\n}\n',
      );
      const app = join(root, "src", "App.tsx");
      await Deno.writeTextFile(
        app,
        `${await Deno.readTextFile(app)}\n// route: /members/:id -> ProfilePage\n`,
      );
      return ["src/pages/ProfilePage.tsx", "src/App.tsx"];
    },
  },
  {
    name: "bugfix",
    rid: "002-members-api-offset",
    type: "bugfix",
    mode: "full-auto",
    title: "Members API skips the first member",
    prd: BUGFIX_PRD,
    ui: false,
    finding: "offset 2 returns the fourth member on",
    // QA's second dispatch is a re-test round, and peaks says so.
    allowWarnings: ["REWORK_ROUND"],
    // QA finds the first fix incomplete once: the repair loop runs one round.
    verdicts: ["return-to-rd", "pass"],
    setup: async (root) => {
      await write(join(root, "server", "members.ts"), SERVER);
      const pkg = JSON.parse(await Deno.readTextFile(join(root, "package.json")));
      pkg.dependencies = { ...pkg.dependencies, express: "^4.19.2" };
      await Deno.writeTextFile(join(root, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
    },
    change: async (root, round) => {
      const path = join(root, "server", "members.ts");
      const text = await Deno.readTextFile(path);
      await Deno.writeTextFile(
        path,
        round === 0
          ? text.replace("members.slice(offset + 1, ", "members.slice(offset, ")
          : text.replace("offset + 1 + limit", "offset + limit"),
      );
      return ["server/members.ts"];
    },
  },
  {
    name: "sliced",
    rid: "004-member-profile",
    type: "feature",
    mode: "full-auto",
    title: "Member profile page with avatar upload, in slices",
    prd: SLICED_PRD,
    ui: true,
    verdicts: ["pass"],
    // A first request in a fresh project: peaks' own setup files are not committed yet, so the host
    // cannot isolate from HEAD and peaks makes the worktrees (the session walk has the host do it).
    allowWarnings: ["HOST_ISOLATION_SKIPPED"],
    // RD planning splits it: the page and the upload client side by side, then the route to both.
    slices: {
      nodes: [
        {
          id: "page",
          owns: ["src/pages/ProfilePage.tsx"],
          task: "Build the profile page as rd/tech-doc-<rid>.md says.",
          change: async (dir) => {
            await write(
              join(dir, "src", "pages", "ProfilePage.tsx"),
              'export function ProfilePage() {\n  return <article className="rounded-lg border p-4" />;\n}\n',
            );
            return ["src/pages/ProfilePage.tsx"];
          },
        },
        {
          id: "upload",
          owns: ["src/lib/avatarUpload.ts"],
          task: "Write the avatar upload client as rd/tech-doc-<rid>.md says.",
          change: async (dir) => {
            await write(
              join(dir, "src", "lib", "avatarUpload.ts"),
              "export const MAX_AVATAR_BYTES = 2 * 1024 * 1024;\n",
            );
            return ["src/lib/avatarUpload.ts"];
          },
        },
        {
          id: "route",
          owns: ["src/App.tsx"],
          task: "Route /members/:id to the profile page as rd/tech-doc-<rid>.md says.",
          change: async (dir) => {
            await requireMerged(dir, "src/pages/ProfilePage.tsx");
            await requireMerged(dir, "src/lib/avatarUpload.ts");
            const app = join(dir, "src", "App.tsx");
            await Deno.writeTextFile(
              app,
              `${await Deno.readTextFile(app)}\n// route: /members/:id -> ProfilePage\n`,
            );
            return ["src/App.tsx"];
          },
        },
      ],
      edges: [{ from: "page", to: "route" }, { from: "upload", to: "route" }],
    },
    // The RD sub-agent after the merge reviews it and finds nothing to fix.
    change: () => Promise.resolve([]),
  },
  {
    name: "docs",
    rid: "003-readme-setup",
    type: "docs",
    mode: "full-auto",
    title: "Document the local setup",
    prd: DOCS_PRD,
    ui: false,
    verdicts: ["pass"],
    allowWarnings: [],
    change: async (root) => {
      const path = join(root, "README.md");
      await Deno.writeTextFile(
        path,
        `${await Deno.readTextFile(
          path,
        )}\n## Getting started\n\n    npm install\n    npm run dev\n    npm test\n`,
      );
      return ["README.md"];
    },
  },
];
