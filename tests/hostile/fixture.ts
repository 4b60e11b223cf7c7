/**
 * The project every hostile case starts from: a workspace with a bound
 * session, a dispatched record in a batch, a channel entry, a PRD request and
 * presence. It is built once through the real CLI and copied per case, so a
 * case costs one process, and a snapshot proves what a case changed.
 */
import { heartbeatArgs, recordPathOf } from "../support/subagent.ts";
import { join, relative } from "../../lib/infra/std.ts";
import { runPeaks } from "../support/cli.ts";
import { standardTree } from "../support/skill_tree.ts";

export interface Fixture {
  root: string;
  sid: string;
  batch: string;
  /** The record as envelopes show it (project-relative). */
  record: string;
  /** A second home folder (user-scope settings and skills live there). */
  home: string;
  /** A directory outside the project, for escaping paths and symlinks. */
  outside: string;
  /** A small skills tree (PEAKS_SKILLS_DIR) for the skills commands. */
  skills: string;
}

/** The environment every case runs with (an IDE, and the fixture's skills tree). */
export function envFor(fx: Fixture): Record<string, string> {
  return { CLAUDECODE: "1", PEAKS_SKILLS_DIR: fx.skills };
}

let template: Promise<Fixture> | undefined;

async function build(): Promise<Fixture> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "peaks-hostile-template-" }));
  const root = join(base, "project");
  const home = join(base, "home");
  const outside = join(base, "outside");
  const skills = join(base, "skills-src");
  for (const dir of [root, home, outside]) await Deno.mkdir(dir, { recursive: true });
  await standardTree(skills);
  await Deno.writeTextFile(join(outside, "secret.txt"), "outside the project\n");
  const peaks = async (...args: string[]) => {
    const env = envFor({ root, sid: "", batch: "", record: "", home, outside, skills });
    const result = await runPeaks([...args, "--json"], { cwd: root, env, home });
    if (result.code !== 0) throw new Error(`fixture ${args.join(" ")}: ${result.stdout}`);
    return result.json;
  };
  const init = await peaks("workspace", "init");
  const sid = init.data.sessionId as string;
  const batch = "b-fixture";
  const dispatched = await peaks(
    "sub-agent",
    "dispatch",
    "rd",
    "--request-id",
    "r1",
    "--batch-id",
    batch,
    "--prompt",
    "fixture prompt",
  );
  await peaks(
    ...heartbeatArgs(dispatched.data.record, "10"),
  );
  await peaks("sub-agent", "share", "--batch", batch, "--key", "rd.note", "--value", '{"a":1}');
  await peaks("request", "init", "--role", "prd", "--id", "r1", "--apply");
  await peaks("skill", "presence:set", "peaks-code", "--mode", "full-auto", "--gate", "startup");
  await Deno.writeTextFile(join(root, "prompt.md"), "Do the work.\n");
  await Deno.mkdir(join(root, ".peaks", "_runtime", sid, "rd"), { recursive: true });
  await Deno.writeTextFile(join(root, ".peaks", "_runtime", sid, "rd", "notes.md"), "notes\n");
  await Deno.symlink(outside, join(root, "link-out"));
  return {
    root,
    sid,
    batch,
    record: recordPathOf(root, dispatched.data.record),
    home,
    outside,
    skills,
  };
}

export function fixtureTemplate(): Promise<Fixture> {
  if (!template) {
    template = build();
    // The template lives as long as the test module; nothing may stay in the temp folder.
    template.then((t) => {
      globalThis.addEventListener("unload", () => {
        try {
          Deno.removeSync(join(t.root, ".."), { recursive: true });
        } catch {
          // already gone
        }
      });
    }, () => {});
  }
  return template;
}

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isSymlink) {
      const link = await Deno.readLink(source);
      await Deno.symlink(link, target);
    } else if (entry.isDirectory) await copyTree(source, target);
    else await Deno.copyFile(source, target);
  }
}

/** A fresh copy of the template (its own project, home and outside folders). */
export async function freshFixture(): Promise<Fixture & AsyncDisposable> {
  const t = await fixtureTemplate();
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "peaks-hostile-" }));
  const fx = {
    ...t,
    root: join(base, "project"),
    home: join(base, "home"),
    outside: join(base, "outside"),
    skills: join(base, "skills-src"),
  };
  await copyTree(join(t.root, ".."), base);
  // The symlink pointed at the template's outside folder: point it at this copy's.
  await Deno.remove(join(fx.root, "link-out"));
  await Deno.symlink(fx.outside, join(fx.root, "link-out"));
  return {
    ...fx,
    async [Symbol.asyncDispose]() {
      await Deno.remove(base, { recursive: true }).catch(() => {});
    },
  };
}

export interface Entry {
  kind: "file" | "dir" | "symlink";
  size: number;
  mtimeMs: number;
  hash: string;
}

/**
 * Every file, folder and symlink under `dirs` with size, mtime and a content
 * hash (or, with `hash: false`, the inode instead of the hash). Lock sidecars (`*.lock`) are left out: taking a lock creates an empty
 * one by design, and they are never deleted.
 */
export async function snapshot(
  dirs: string[],
  options: { hash?: boolean } = {},
): Promise<Map<string, Entry>> {
  const hashing = options.hash ?? true;
  const out = new Map<string, Entry>();
  const visit = async (base: string, dir: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.name.endsWith(".lock")) continue;
      const info = await Deno.lstat(path);
      const key = `${base}:${relative(base, path)}`;
      if (info.isSymlink) {
        out.set(key, { kind: "symlink", size: 0, mtimeMs: 0, hash: await Deno.readLink(path) });
      } else if (info.isDirectory) {
        // A folder's own mtime only echoes entries added or removed, which are listed anyway.
        out.set(key, { kind: "dir", size: 0, mtimeMs: 0, hash: "" });
        await visit(base, path);
      } else if (!hashing) {
        // Cheap form for thousands of in-process runs: a write replaces the inode or the mtime.
        const hash = `ino:${info.ino ?? ""}`;
        out.set(key, { kind: "file", size: info.size, mtimeMs: info.mtime?.getTime() ?? 0, hash });
      } else {
        const bytes = await Deno.readFile(path);
        const digest = await crypto.subtle.digest("SHA-256", bytes);
        const hash = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0"))
          .join("");
        out.set(key, { kind: "file", size: info.size, mtimeMs: info.mtime?.getTime() ?? 0, hash });
      }
    }
  };
  for (const dir of dirs) await visit(dir, dir);
  return out;
}

/** What differs between two snapshots, one line per path. */
export function diffSnapshots(before: Map<string, Entry>, after: Map<string, Entry>): string[] {
  const changes: string[] = [];
  for (const [path, entry] of after) {
    const old = before.get(path);
    if (!old) changes.push(`added ${path}`);
    else if (JSON.stringify(old) !== JSON.stringify(entry)) changes.push(`changed ${path}`);
  }
  for (const path of before.keys()) if (!after.has(path)) changes.push(`removed ${path}`);
  return changes;
}
