/**
 * What each role of the stand-in sub-agent writes. The content is scripted
 * for the sample project's profile-page request, but every file goes where
 * the real role's skill puts it, and request files go through peaks.
 */
import { uiScreenshot } from "../screenshot.ts";
import { dirname, join, relative } from "../../lib/infra/std.ts";

export interface RoleRuntime {
  projectRoot: string;
  sessionId: string;
  requestId: string;
  role: string;
  type: string;
}

export interface Written {
  status: "ok" | "skipped";
  artefacts: Array<{ path: string; summary: string }>;
  diffSummary: string;
  /** Product files changed (project-relative): the return JSON lists them with the artefacts. */
  product?: string[];
  reason?: string;
  /** QA's verdict, returned as the return JSON's `verdict`. */
  verdict?: "pass" | "return-to-rd" | "blocked";
}

type Peaks = (args: string[]) => Promise<Record<string, unknown>>;

async function write(path: string, text: string): Promise<void> {
  await Deno.mkdir(dirname(path), { recursive: true });
  await Deno.writeTextFile(path, text);
}

/** Replaces every `<placeholder>` above the history block with `fill(token)`. */
export function fillPlaceholders(text: string, fill: (token: string) => string): string {
  const cut = text.indexOf("<!-- peaks:history:begin -->");
  const head = cut === -1 ? text : text.slice(0, cut);
  return head.replace(/<[A-Za-z][^<>\n]*>/g, (token) => fill(token.slice(1, -1))) +
    (cut === -1 ? "" : text.slice(cut));
}

async function createRequest(
  rt: RoleRuntime,
  session: string,
  role: string,
  peaks: Peaks,
  fill: (t: string) => string,
) {
  await peaks([
    "request",
    "init",
    "--role",
    role,
    "--id",
    rt.requestId,
    "--type",
    rt.type,
    "--apply",
  ]);
  const path = join(session, role, "requests", `${rt.requestId}.md`);
  await Deno.writeTextFile(path, fillPlaceholders(await Deno.readTextFile(path), fill));
  return path;
}

const DESIGN = `# Design draft: profile page

## Direction
A profile page in the same card language as the members list: one column on
mobile, a two-column header (avatar left, name and role right) from 640 px.

## Screens and states
- Profile page: loading (skeleton card), loaded, not found (link back to the team).
- Avatar upload: idle, dragging over, uploading (progress bar), failed (message under the drop zone).

## Components
- MemberCard's border and spacing reused for the profile card.
- AvatarUpload: a drop zone that also opens the file picker on click; PNG or JPEG up to 2 MB.

## Handoff to RD
- Keep the Tailwind classes of MemberCard; no new colours.
- The avatar is round, 96 px, with the member's initials as a fallback.
`;

const TECH_DOC = (rid: string) =>
  `# Tech doc: ${rid}

## Scope
Add /members/:id with a profile card and an avatar upload, using the existing
zustand store and React Router.

## In-scope files
- src/pages/ProfilePage.tsx: new page reading the member from the store.
- src/components/AvatarUpload.tsx: new component, validates type and size before upload.
- src/App.tsx: one new route.
- src/store/members.ts: an optional avatarUrl field and a setAvatar action.

## Approach
Keep the store as the single source; the upload reads the file locally with an
object URL (no backend in this project), so setAvatar stores that URL.

## Risks
- Large images: refuse files over 2 MB before reading them.

## Verification
- vitest: ProfilePage renders a known member and the not-found state.
- vitest: AvatarUpload refuses a 3 MB file and a GIF.
`;

const TEST_CASES = (rid: string) =>
  `# Test cases: ${rid}

## Test cases

- TC1 (Acceptance: A1): open /members/1; the page shows Ada Lovelace and her role.
- TC2 (Acceptance: A1): open /members/99; the page shows "not found" and a link back.
- TC3 (Acceptance: A2): drop a 200 KB PNG; the avatar shows it without a reload.
- TC4 (Acceptance: A3): drop a 3 MB JPEG; the upload is refused with a message.
- TC5 (Acceptance: A3): drop a GIF; the upload is refused with a message.
`;

const PROFILE_PAGE = `import { Link, useParams } from "react-router-dom";
import { useMembers } from "../store/members";
import { AvatarUpload } from "../components/AvatarUpload";

export function ProfilePage() {
  const { id } = useParams();
  const member = useMembers((state) => state.members.find((m) => m.id === id));
  if (!member) {
    return (
      <p>
        Member not found. <Link to="/">Back to the team</Link>
      </p>
    );
  }
  return (
    <article className="rounded-lg border p-4 sm:grid sm:grid-cols-[auto_1fr] sm:gap-4">
      <AvatarUpload memberId={member.id} avatarUrl={member.avatarUrl} name={member.name} />
      <div>
        <h1 className="text-2xl font-semibold">{member.name}</h1>
        <p className="text-sm text-gray-600">{member.role}</p>
      </div>
    </article>
  );
}
`;

const AVATAR_UPLOAD = `import { useState } from "react";
import { useMembers } from "../store/members";

const MAX_BYTES = 2 * 1024 * 1024;
const TYPES = ["image/png", "image/jpeg"];

export function AvatarUpload(
  { memberId, avatarUrl, name }: { memberId: string; avatarUrl?: string; name: string },
) {
  const setAvatar = useMembers((state) => state.setAvatar);
  const [error, setError] = useState<string | null>(null);
  const accept = (file: File) => {
    if (!TYPES.includes(file.type)) return setError("Use a PNG or JPEG image.");
    if (file.size > MAX_BYTES) return setError("The image must be 2 MB or smaller.");
    setError(null);
    setAvatar(memberId, URL.createObjectURL(file));
  };
  return (
    <label className="block h-24 w-24 cursor-pointer overflow-hidden rounded-full border">
      {avatarUrl ? <img src={avatarUrl} alt={name} /> : <span>{name.slice(0, 2)}</span>}
      <input
        type="file"
        className="hidden"
        onChange={(event) => event.target.files?.[0] && accept(event.target.files[0])}
      />
      {error && <span role="alert">{error}</span>}
    </label>
  );
}
`;

async function implement(rt: RoleRuntime): Promise<string[]> {
  const src = join(rt.projectRoot, "src");
  await write(join(src, "pages", "ProfilePage.tsx"), PROFILE_PAGE);
  await write(join(src, "components", "AvatarUpload.tsx"), AVATAR_UPLOAD);
  const app = join(src, "App.tsx");
  const appText = await Deno.readTextFile(app);
  if (!appText.includes("ProfilePage")) {
    await Deno.writeTextFile(
      app,
      appText
        .replace(
          'import { MembersPage } from "./pages/MembersPage";',
          'import { MembersPage } from "./pages/MembersPage";\nimport { ProfilePage } from "./pages/ProfilePage";',
        )
        .replace(
          '<Route path="/" element={<MembersPage />} />',
          '<Route path="/" element={<MembersPage />} />\n        <Route path="/members/:id" element={<ProfilePage />} />',
        ),
    );
  }
  const store = join(src, "store", "members.ts");
  const storeText = await Deno.readTextFile(store);
  if (!storeText.includes("setAvatar")) {
    await Deno.writeTextFile(
      store,
      storeText
        .replace("  role: string;\n}", "  role: string;\n  avatarUrl?: string;\n}")
        .replace(
          "  members: Member[];\n}",
          "  members: Member[];\n  setAvatar: (id: string, url: string) => void;\n}",
        )
        .replace("create<MembersState>(() => ({", "create<MembersState>((set) => ({")
        .replace(
          "  ],\n}));",
          "  ],\n  setAvatar: (id, url) =>\n    set((state) => ({\n      members: state.members.map((m) => (m.id === id ? { ...m, avatarUrl: url } : m)),\n    })),\n}));",
        ),
    );
  }
  return [
    "src/pages/ProfilePage.tsx",
    "src/components/AvatarUpload.tsx",
    "src/App.tsx",
    "src/store/members.ts",
  ];
}

const HANDOFF = (rid: string) =>
  `# Handoff: ${rid}\n\n## Summary\n\nMember profile page with avatar upload.\n\n## Verification\n\nQA verdict pass (5 of 5 cases).\n\n## Standards increment\n\nCLAUDE.md and AGENTS.md gained the peaks block naming React, Vite, Tailwind CSS, zustand and Vitest.\n`;

export async function roleWork(rt: RoleRuntime, session: string, peaks: Peaks): Promise<Written> {
  const rel = (path: string) => relative(rt.projectRoot, path);
  const planningTypes = ["feature", "refactor", "bugfix"];
  switch (rt.role) {
    case "ui": {
      const draft = join(session, "ui", `design-draft-${rt.requestId}.md`);
      await write(draft, DESIGN);
      const request = await createRequest(
        rt,
        session,
        "ui",
        peaks,
        () => `see ui/design-draft-${rt.requestId}.md`,
      );
      // A real browser looks at the current members page when Chromium is installed.
      const shot = await uiScreenshot(rt.projectRoot, session, rt.requestId);
      return {
        status: "ok",
        artefacts: [
          {
            path: rel(draft),
            summary: "Profile page and avatar upload: states, components, handoff",
          },
          { path: rel(request), summary: "UI request for the profile page" },
          ...(shot
            ? [{ path: rel(shot), summary: "The members page today, headless Chromium" }]
            : []),
        ],
        diffSummary: "no product code changed; design artefacts under .peaks only",
      };
    }
    case "rd-planning": {
      if (!planningTypes.includes(rt.type)) {
        return { status: "skipped", artefacts: [], diffSummary: "none", reason: `type=${rt.type}` };
      }
      const doc = rt.type === "bugfix"
        ? join(session, "rd", `bug-analysis-${rt.requestId}.md`)
        : join(session, "rd", `tech-doc-${rt.requestId}.md`);
      await write(
        doc,
        rt.type === "bugfix"
          ? `## Root cause\n\nTo be traced.\n\n## Fix approach\n\nTo be decided.\n`
          : TECH_DOC(rt.requestId),
      );
      const request = await createRequest(rt, session, "rd", peaks, () => `see ${rel(doc)}`);
      return {
        status: "ok",
        artefacts: [{
          path: rel(doc),
          summary: "Files, approach, risks and checks for the profile page",
        }, { path: rel(request), summary: "RD request for the profile page" }],
        diffSummary: "no product code changed; planning artefact only",
      };
    }
    case "qa-test-cases": {
      const cases = join(session, "qa", "test-cases", `${rt.requestId}.md`);
      await write(cases, TEST_CASES(rt.requestId));
      const request = await createRequest(rt, session, "qa", peaks, () => `see ${rel(cases)}`);
      return {
        status: "ok",
        artefacts: [
          { path: rel(cases), summary: "5 test cases covering A1-A3" },
          { path: rel(request), summary: "QA request for the profile page" },
        ],
        diffSummary: "no product code changed; test cases only",
      };
    }
    case "rd": {
      const files = await implement(rt);
      const review = join(session, "rd", `code-review-${rt.requestId}.md`);
      await write(
        review,
        `# Code review: ${rt.requestId}\n\n## Findings\n\n- The upload refuses wrong types and sizes before reading the file.\n- Object URLs are not revoked when the avatar changes; acceptable for this scope, noted as a follow-up.\n`,
      );
      return {
        status: "ok",
        artefacts: [{ path: rel(review), summary: "Self review of the profile page change" }],
        diffSummary: `changed ${files.join(", ")}: new profile route, page and avatar upload`,
        product: files,
      };
    }
    case "qa": {
      const report = join(session, "qa", "test-reports", `${rt.requestId}.md`);
      await write(
        report,
        `# Test report: ${rt.requestId}\n\n## Test execution\n\n- TC1 passed\n- TC2 passed\n- TC3 passed\n- TC4 passed\n- TC5 passed\n\nVerdict: pass\n`,
      );
      return {
        status: "ok",
        artefacts: [{ path: rel(report), summary: "5 of 5 test cases passed" }],
        diffSummary: "no product code changed; test report only",
        verdict: "pass",
      };
    }
    case "txt": {
      const handoff = join(session, "txt", `handoff-${rt.requestId}.md`);
      await write(handoff, HANDOFF(rt.requestId));
      const request = await createRequest(rt, session, "txt", peaks, () => "see the handoff");
      return {
        status: "ok",
        artefacts: [
          { path: rel(handoff), summary: "Handoff: summary, verification, standards" },
          { path: rel(request), summary: "TXT request for the profile page" },
        ],
        diffSummary: "no product code changed; handoff only",
      };
    }
    default: {
      const notes = join(session, "system", `notes-${rt.role}-${rt.requestId}.md`);
      await write(
        notes,
        `# ${rt.role} notes for ${rt.requestId}\n\nNothing scripted for this role.\n`,
      );
      return {
        status: "ok",
        artefacts: [{ path: rel(notes), summary: `${rt.role} notes` }],
        diffSummary: "none",
      };
    }
  }
}
