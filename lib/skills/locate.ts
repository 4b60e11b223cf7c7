/**
 * Where the bundled skills tree is, without reading it: `PEAKS_SKILLS_DIR`;
 * the `skills/` folder next to the binary (or one level up, the installer's
 * `bin/` + `skills/` layout); the copy compiled into the binary. Under
 * `deno run` the repository's own `skills/` stands in for the last two. Kept
 * apart from source.ts so a dispatch that only needs a role's section does
 * not load the tree checks and their YAML parser.
 */
import type { Ctx } from "../infra/command/ctx.ts";
import { PeaksError } from "../infra/errors.ts";
import { dirname, fromFileUrl, join, resolve } from "../infra/std.ts";
import { isCompiled } from "../infra/command/build.ts";
import { isDirectory } from "../infra/fs/files.ts";

export type SourceKind = "env" | "binary" | "repository" | "embedded";

/** What the running program looks like; tests pass their own. */
export interface SourceProbe {
  compiled: boolean;
  execPath: string;
  /** The skills folder beside the program's own modules (embedded copy or repository). */
  bundledDir: string;
}

export function runtimeProbe(): SourceProbe {
  return {
    compiled: isCompiled(),
    execPath: Deno.execPath(),
    bundledDir: fromFileUrl(new URL("../../skills", import.meta.url)),
  };
}

/** Finds the skills tree without reading it. */
export async function locateSkillsSource(
  ctx: Ctx,
  probe: SourceProbe = runtimeProbe(),
): Promise<{ kind: SourceKind; path: string }> {
  const fromEnv = ctx.env.get("PEAKS_SKILLS_DIR");
  if (fromEnv) {
    const path = resolve(ctx.cwd, fromEnv);
    if (!(await isDirectory(path))) {
      throw new PeaksError(
        "SKILLS_SOURCE_NOT_FOUND",
        `PEAKS_SKILLS_DIR points at ${path}, which is not a folder. Point it at a skills tree (one folder per skill, each with a SKILL.md) or unset it.`,
        { data: { source: "env", path } },
      );
    }
    return { kind: "env", path: await Deno.realPath(path) };
  }
  const candidates: { kind: SourceKind; path: string }[] = [];
  if (probe.compiled) {
    const binDir = dirname(probe.execPath);
    candidates.push({ kind: "binary", path: join(binDir, "skills") });
    candidates.push({ kind: "binary", path: join(dirname(binDir), "skills") });
    candidates.push({ kind: "embedded", path: probe.bundledDir });
  } else {
    candidates.push({ kind: "repository", path: probe.bundledDir });
  }
  for (const candidate of candidates) {
    if (await isDirectory(candidate.path)) return candidate;
  }
  throw new PeaksError(
    "SKILLS_SOURCE_NOT_FOUND",
    `No skills tree found (looked in ${
      candidates.map((c) => c.path).join(", ")
    }). Set PEAKS_SKILLS_DIR to the folder that holds the skills.`,
    { data: { tried: candidates } },
  );
}
