/**
 * A real browser once: the sample project's members page rendered as static HTML (the demo runs
 * no dev server; names and roles come from the project's own store) and photographed by headless
 * Chromium. The PNG goes where the UI role files screenshots, `qa/screenshots/` in the session.
 */
import { join } from "../lib/infra/std.ts";
import { onPath } from "./report.ts";

/** The Chromium on `path`, as Debian (`chromium`) and others name it. */
export async function findChromium(path: string): Promise<string | undefined> {
  for (const name of ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]) {
    const found = await onPath(name, path, Deno.build.os === "windows");
    if (found) return found;
  }
  return undefined;
}

const escape = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

/** The members the sample's store starts with: `{ id: "1", name: "…", role: "…" }`. */
export function storeMembers(storeText: string): { name: string; role: string }[] {
  return [...storeText.matchAll(/\{\s*id: "[^"]*",\s*name: "([^"]*)",\s*role: "([^"]*)"/g)].map(
    (m) => ({ name: m[1], role: m[2] }),
  );
}

/** MembersPage and MemberCard as static HTML, their Tailwind classes written out as CSS. */
export function membersPageHtml(members: { name: string; role: string }[]): string {
  const cards = members.map((m) =>
    `<li><article class="card"><h2>${escape(m.name)}</h2><p>${escape(m.role)}</p></article></li>`
  ).join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="UTF-8"><title>Team directory</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2rem; color: #111827; }
h1 { margin: 0 0 1rem; font-size: 1.5rem; font-weight: 600; }
ul { list-style: none; padding: 0; display: grid; gap: .75rem; grid-template-columns: 1fr 1fr; }
.card { border: 1px solid #e5e7eb; border-radius: .5rem; padding: 1rem; }
.card h2 { margin: 0; font-size: 1rem; font-weight: 500; }
.card p { margin: .25rem 0 0; font-size: .875rem; color: #4b5563; }
</style></head>
<body><section><h1>Team</h1><ul>
${cards}
</ul></section></body></html>
`;
}

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/**
 * Photographs the project's members page into `png` with headless Chromium; returns an error
 * message instead of throwing, so the demo can go on without a browser.
 */
export async function screenshotMembersPage(
  chromium: string,
  projectRoot: string,
  png: string,
): Promise<string | undefined> {
  const store = await Deno.readTextFile(join(projectRoot, "src", "store", "members.ts"));
  const dir = await Deno.makeTempDir({ prefix: "peaks-page-" });
  try {
    const page = join(dir, "members.html");
    await Deno.writeTextFile(page, membersPageHtml(storeMembers(store)));
    await Deno.mkdir(join(png, ".."), { recursive: true });
    const out = await new Deno.Command(chromium, {
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        `--user-data-dir=${join(dir, "profile")}`,
        "--window-size=800,480",
        `--screenshot=${png}`,
        `file://${page}`,
      ],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
      signal: AbortSignal.timeout(60_000),
    }).output();
    const bytes = await Deno.readFile(png).catch(() => new Uint8Array());
    if (out.code !== 0 || !PNG.every((b, i) => bytes[i] === b)) {
      const why = new TextDecoder().decode(out.stderr).trim().split("\n").at(-1) ?? "";
      return `chromium exited ${out.code} without a PNG${why ? `: ${why}` : ""}`;
    }
    return undefined;
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/**
 * The UI step's screenshot: `qa/screenshots/<rid>-members-page.png` in the session when Chromium
 * is on PATH. Undefined without a browser (the demo says so and goes on) or when it failed.
 */
export async function uiScreenshot(
  projectRoot: string,
  session: string,
  rid: string,
): Promise<string | undefined> {
  const chromium = await findChromium(Deno.env.get("PATH") ?? "");
  if (!chromium) return undefined;
  const png = join(session, "qa", "screenshots", `${rid}-members-page.png`);
  const error = await screenshotMembersPage(chromium, projectRoot, png);
  if (error) console.error(`ui: no screenshot: ${error}`);
  return error ? undefined : png;
}
