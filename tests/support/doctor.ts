/**
 * Doctor fixtures: a project set up the way a healthy install leaves it, a
 * doctor call, and a runner for the fixes findings carry (peaks commands
 * through the real entry point, `mv` and `rm` repairs as plain programs).
 */
import { assertEquals } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { splitCommandLine } from "../../lib/infra/shell.ts";
import { runPeaks, type RunResult } from "./cli.ts";
import { copyFixture } from "./fixtures.ts";
import { runNextAction } from "./next_actions.ts";
import { standardTree } from "./skill_tree.ts";

export interface DoctorProject {
  root: string;
  home: string;
  env: Record<string, string>;
  sid: string;
}

export interface Finding {
  id: string;
  check: string;
  severity: "error" | "warning" | "info";
  title: string;
  detail: string;
  fix: string | null;
  confirm?: boolean;
  paths?: string[];
}

export async function git(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args: ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args],
    cwd,
    stdout: "piped",
    stderr: "null",
  }).output();
  if (!out.success) throw new Error(`git ${args.join(" ")} failed`);
  return new TextDecoder().decode(out.stdout).trim();
}

/** Runs a peaks command for the project and fails the test when it fails. */
export async function peaks(p: DoctorProject, ...args: string[]): Promise<RunResult> {
  const result = await runPeaks([...args, "--project", p.root, "--json"], {
    cwd: p.root,
    env: p.env,
    home: p.home,
  });
  assertEquals(result.code, 0, `${args.join(" ")}: ${result.stdout}${result.stderr}`);
  return result;
}

/** A bare project folder (a copy of a fixture, or empty) with its own home and skills tree. */
export async function bareProject(
  dir: string,
  options: { fixture?: boolean; git?: boolean } = {},
): Promise<DoctorProject> {
  const root = options.fixture === false
    ? join(dir, "project")
    : await copyFixture("greenfield-react-vite", dir, "project");
  const home = join(dir, "home");
  const skills = join(dir, "skills-src");
  await Deno.mkdir(root, { recursive: true });
  await Deno.mkdir(home, { recursive: true });
  await standardTree(skills);
  if (options.git) await git(root, "init", "-q", "-b", "main");
  return { root, home, env: { PEAKS_SKILLS_DIR: skills }, sid: "" };
}

/** Everything a healthy install does: workspace, status line, skills for every agent, standards. */
export async function healthyProject(dir: string): Promise<DoctorProject> {
  const p = await bareProject(dir, { git: true });
  p.sid = (await peaks(p, "workspace", "init")).json.data.sessionId;
  await peaks(p, "statusline", "install");
  await peaks(p, "skills", "install", "--agent", "all", "--scope", "project");
  await peaks(p, "standards", "init", "--apply");
  return p;
}

export function doctor(p: DoctorProject, env: Record<string, string> = {}): Promise<RunResult> {
  return runPeaks(["doctor", "--project", p.root, "--json"], {
    cwd: p.root,
    env: { ...p.env, ...env },
    home: p.home,
  });
}

export function findings(result: RunResult): Finding[] {
  return result.json.data.findings;
}

export function ids(result: RunResult): string[] {
  return findings(result).map((f) => f.id).sort();
}

export function finding(result: RunResult, id: string): Finding {
  const found = findings(result).filter((f) => f.id === id);
  assertEquals(found.length, 1, `one ${id} in ${JSON.stringify(result.json.data.findings)}`);
  return found[0];
}

/** Runs a finding's fix as written; peaks commands through the real entry point. */
export async function runFix(
  p: DoctorProject,
  fix: string,
): Promise<{ code: number; out: string }> {
  const words = splitCommandLine(fix);
  if (words[0] === "peaks") {
    const result = await runNextAction(fix, { cwd: p.root, env: p.env, home: p.home });
    return { code: result.code, out: result.stdout + result.stderr };
  }
  if (!["mv", "rm"].includes(words[0])) throw new Error(`unexpected fix program: ${fix}`);
  const out = await new Deno.Command(words[0], {
    args: words.slice(1),
    cwd: p.root,
    stderr: "piped",
  })
    .output();
  return { code: out.code, out: new TextDecoder().decode(out.stderr) };
}
