/**
 * What the skills cost a Claude Code session, as the real host projects it:
 * the checkout is added as a local marketplace in a scratch home, the plugin
 * installed, and `claude plugin details peaks` read (always-on tokens per
 * session, on-invoke tokens per skill). Uses the Claude Code the host suite
 * caches (`deno task test:hosts` installs it); without one the section says so.
 */
import { join } from "../lib/infra/std.ts";

export const CLAUDE_VERSION = "2.1.328";

export interface SkillCost {
  skill: string;
  alwaysOn: string;
  onInvoke: string;
}

export interface PluginCost {
  claude: string;
  alwaysOn: string | null;
  skills: SkillCost[];
  skipped?: string;
}

function cachedClaude(): string {
  const cache = Deno.env.get("PEAKS_HOSTS_CACHE") ??
    join(Deno.env.get("HOME") ?? "", ".cache", "peaks-hosts");
  return join(
    cache,
    `anthropic-ai+claude-code@${CLAUDE_VERSION}`,
    "node_modules",
    ".bin",
    "claude",
  );
}

async function run(claude: string, home: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(claude, {
    args,
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "",
      HOME: home,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_TELEMETRY: "1",
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new Error(`claude ${args.join(" ")}: ${new TextDecoder().decode(out.stderr).trim()}`);
  }
  return text;
}

/** Reads `plugin details` text: the always-on total and one row per skill. */
export function parseDetails(text: string): Pick<PluginCost, "alwaysOn" | "skills"> {
  const alwaysOn = /Always-on:\s+(~?[\d.]+k? tok)/.exec(text)?.[1] ?? null;
  const skills = [...text.matchAll(/^\s+(peaks-[a-z]+)\s+(~[\d.]+k?)\s+(~[\d.]+k?)\s*$/gm)].map((
    m,
  ) => ({ skill: m[1], alwaysOn: m[2], onInvoke: m[3] }));
  return { alwaysOn, skills };
}

export async function measurePluginCost(checkout: string): Promise<PluginCost> {
  const claude = cachedClaude();
  const none = { claude: CLAUDE_VERSION, alwaysOn: null, skills: [] };
  if (!(await Deno.stat(claude).then((i) => i.isFile, () => false))) {
    return { ...none, skipped: "no cached Claude Code (run `deno task test:hosts` once)" };
  }
  const home = await Deno.makeTempDir({ prefix: "peaks-bench-plugin-" });
  try {
    await run(claude, home, ["plugin", "marketplace", "add", checkout]);
    await run(claude, home, ["plugin", "install", "peaks@peaks"]);
    return {
      claude: CLAUDE_VERSION,
      ...parseDetails(await run(claude, home, ["plugin", "details", "peaks"])),
    };
  } catch (error) {
    return { ...none, skipped: error instanceof Error ? error.message : String(error) };
  } finally {
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
}
