/**
 * The README's quick start as CI runs it. In the first sh block under "## Quick start", the lines
 * that start with `npx` are the commands for a machine without Deno: exactly one must name the
 * demo and one the tests. CI reads them from the README each time, so the two cannot drift.
 *
 *   deno run -q --allow-read=README.md .ci/quickstart.ts README.md demo|test
 *
 * prints that command on one line; a README without them exits 1 and says what is missing.
 */

export type QuickStartName = "demo" | "test";

export class QuickStartError extends Error {}

/** The shell commands of one fenced block: comment lines and trailing ` # …` comments removed. */
function blockCommands(lines: string[]): string[] {
  return lines
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
}

/** The quick start's commands for a machine without Deno: the npx lines of its first sh block. */
function npxCommands(markdown: string): string[] {
  const lines = markdown.split(/\r?\n/);
  const start = lines.findIndex((line) => /^##\s+Quick start\b/i.test(line));
  if (start === -1) throw new QuickStartError('the README has no "## Quick start" section');
  let fenced = false;
  const end = lines.findIndex((line, i) => {
    if (i <= start) return false;
    if (line.trim().startsWith("```")) fenced = !fenced;
    return !fenced && /^##?\s/.test(line);
  });
  const section = lines.slice(start + 1, end === -1 ? undefined : end);
  const open = section.findIndex((line) => /^```(sh|bash|shell)\s*$/.test(line.trim()));
  if (open === -1) throw new QuickStartError("the quick start has no ```sh block");
  const close = section.findIndex((line, i) => i > open && line.trim() === "```");
  if (close === -1) throw new QuickStartError("the quick start's ```sh block is not closed");
  return blockCommands(section.slice(open + 1, close)).filter((c) => /^npx\s/.test(c));
}

/** The one quick-start command without Deno that runs the demo, or the tests. */
export function quickStartCommand(markdown: string, name: QuickStartName): string {
  const npx = npxCommands(markdown);
  const matches = npx.filter((command) => command.split(/\s+/).includes(name));
  if (matches.length !== 1) {
    throw new QuickStartError(
      `the quick start needs exactly one npx command that runs the ${name}, found ${matches.length}` +
        (npx.length ? `: ${npx.join(" | ")}` : ""),
    );
  }
  return matches[0];
}

/** Both quick-start commands; one command cannot be both. */
export function quickStartCommands(markdown: string): Record<QuickStartName, string> {
  const demo = quickStartCommand(markdown, "demo");
  const test = quickStartCommand(markdown, "test");
  if (demo === test) {
    throw new QuickStartError(`one command cannot be both the demo and the tests: ${demo}`);
  }
  return { demo, test };
}

if (import.meta.main) {
  const [readme, name] = Deno.args;
  if (!readme || (name !== "demo" && name !== "test")) {
    console.error("usage: deno run --allow-read .ci/quickstart.ts <README.md> demo|test");
    Deno.exit(2);
  }
  try {
    console.log(quickStartCommand(await Deno.readTextFile(readme), name));
  } catch (error) {
    if (!(error instanceof QuickStartError || error instanceof Deno.errors.NotFound)) throw error;
    console.error(`${readme}: ${error.message}`);
    Deno.exit(1);
  }
}
