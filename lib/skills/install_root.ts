/** Carries out `skills install` in one skills folder: plan, refuse conflicts, write, record. */
import type { Ctx } from "../infra/command/ctx.ts";
import { gateError } from "../infra/errors.ts";
import { writeFileAtomic } from "../infra/fs/files.ts";
import { VERSION } from "../infra/command/build.ts";
import type { AgentId, InstallRoot } from "./agents.ts";
import {
  type FileAction,
  type FilePlan,
  type InstallPlan,
  planInstall,
  writesFile,
} from "./install_plan.ts";
import { type Manifest, manifestContent, readManifest, writeManifest } from "./manifest.ts";
import { ensureRoot, inspectRoot, present, withRootLock } from "./root.ts";
import type { SkillsSource } from "./source.ts";
import { entryKind, resolveRel, walkTree } from "./tree.ts";
import { pruneCreatedDirs } from "./prune.ts";
import { isoTime } from "../infra/ids.ts";

export interface InstallOptions {
  force: boolean;
  dryRun: boolean;
  /** Commands that rebuild a broken manifest (offered in RECORD_UNREADABLE). */
  repair: string[];
}

export interface RootInstallReport {
  dir: string;
  path: string;
  agents: AgentId[];
  status: "installed" | "updated" | "unchanged" | "would-install" | "would-update";
  changed: boolean;
  counts: Partial<Record<FileAction, number>>;
  /** Every file whose action is not `unchanged`. */
  files: FilePlan[];
  userModified: string[];
}

async function loadManifest(root: InstallRoot, options: InstallOptions) {
  try {
    return await readManifest(root.path, options.repair);
  } catch (error) {
    // --force rebuilds an unreadable manifest from what is on disk.
    if (options.force && (error as { code?: string }).code === "RECORD_UNREADABLE") {
      return undefined;
    }
    throw error;
  }
}

function refuseConflicts(root: InstallRoot, plan: InstallPlan): void {
  if (!plan.conflicts.length) return;
  throw gateError(
    "SKILLS_CONFLICT",
    `${root.display}: ${
      plan.conflicts.map((c) => c.reason).join("; ")
    }. peaks never changes folders it did not install: move or rename them, then run the install again. Nothing was written.`,
    { data: { dir: root.display, path: root.path, conflicts: plan.conflicts } },
  );
}

/** Creates the folders between the skills folder and a file; records the ones it made. */
async function ensureParents(root: InstallRoot, rel: string, created: Set<string>): Promise<void> {
  const parts = rel.split("/");
  const rootRel = root.segments.join("/");
  for (let i = 1; i < parts.length; i++) {
    const sub = parts.slice(0, i).join("/");
    const path = resolveRel(root.path, sub);
    if ((await entryKind(path)) !== "missing") continue;
    await Deno.mkdir(path);
    created.add(`${rootRel}/${sub}`);
  }
}

function summarize(
  root: InstallRoot,
  plan: InstallPlan,
  changed: boolean,
  fresh: boolean,
  dryRun: boolean,
): RootInstallReport {
  const counts: Partial<Record<FileAction, number>> = {};
  for (const file of plan.files) counts[file.action] = (counts[file.action] ?? 0) + 1;
  const status = !changed
    ? "unchanged"
    : dryRun
    ? (fresh ? "would-install" : "would-update")
    : (fresh ? "installed" : "updated");
  return {
    dir: root.display,
    path: root.path,
    agents: root.agents,
    status,
    changed: changed && !dryRun,
    counts,
    files: plan.files.filter((f) => f.action !== "unchanged"),
    userModified: plan.files.filter((f) =>
      f.action === "user-modified" || f.action === "keep-modified"
    )
      .map((f) => f.path),
  };
}

function nextManifest(
  ctx: Ctx,
  root: InstallRoot,
  source: SkillsSource,
  current: Manifest | undefined,
  plan: InstallPlan,
  createdDirs: Set<string>,
): Manifest {
  const now = isoTime(ctx.now());
  const agents = [...new Set([...(current?.agents ?? []), ...root.agents])];
  return {
    manifestVersion: 1,
    version: VERSION,
    installedAt: current?.installedAt ?? now,
    updatedAt: now,
    source: { kind: source.kind, path: source.path },
    agents,
    skills: plan.nextSkills,
    files: plan.nextFiles,
    createdDirs: [...createdDirs].sort(),
  };
}

export async function installIntoRoot(
  ctx: Ctx,
  root: InstallRoot,
  source: SkillsSource,
  options: InstallOptions,
): Promise<RootInstallReport> {
  // A first, unlocked look: a dry run, or a rerun with nothing to do, writes nothing at all.
  let before: Manifest | undefined;
  let preview: InstallPlan;
  for (let attempt = 1;; attempt++) {
    const { exists } = await inspectRoot(root);
    before = exists ? await loadManifest(root, options) : undefined;
    preview = await planInstall(root.path, source, before, options.force);
    if (!preview.conflicts.length) break;
    // Another install or uninstall may be halfway through this folder: look again under the lock.
    const again = await withRootLock(root.path, ctx.env, present(root), async () => {
      const manifest = await loadManifest(root, options);
      return [manifest, await planInstall(root.path, source, manifest, options.force)] as const;
    });
    if (again) {
      [before, preview] = again;
      break;
    }
    if (attempt >= 10) break;
  }
  refuseConflicts(root, preview);
  const next = nextManifest(ctx, root, source, before, preview, new Set(before?.createdDirs));
  const wouldChange = manifestContent(next) !== manifestContent(before) ||
    preview.files.some((f) => writesFile(f.action) || f.action === "remove");
  if (options.dryRun || !wouldChange) {
    return summarize(root, preview, wouldChange, !before, options.dryRun);
  }

  const createdRoot: string[] = [];
  const report = await withRootLock(root.path, ctx.env, async () => {
    createdRoot.push(...(await ensureRoot(root)));
    return true;
  }, async () => {
    const manifest = await loadManifest(root, options);
    const plan = await planInstall(root.path, source, manifest, options.force);
    refuseConflicts(root, plan);
    const created = new Set([...(manifest?.createdDirs ?? []), ...createdRoot]);
    const rootRel = root.segments.join("/");
    for (const skill of plan.adoptedSkills) {
      created.add(`${rootRel}/${skill}`);
      const walk = await walkTree(resolveRel(root.path, skill), skill);
      for (const dir of walk.dirs) created.add(`${rootRel}/${dir}`);
    }
    let wrote = false;
    for (const file of plan.files) {
      const target = resolveRel(root.path, file.path);
      if (writesFile(file.action)) {
        await ensureParents(root, file.path, created);
        const { bytes, mode } = source.files.get(file.path)!;
        await writeFileAtomic(target, bytes, mode ? { mode } : {});
        wrote = true;
      } else if (file.action === "remove") {
        await Deno.remove(target);
        await pruneCreatedDirs(root, file.path, created);
        wrote = true;
      }
    }
    const next = nextManifest(ctx, root, source, manifest, plan, created);
    const manifestChanged = manifestContent(next) !== manifestContent(manifest);
    if (manifestChanged) await writeManifest(root.path, next);
    return summarize(root, plan, wrote || manifestChanged, !manifest, false);
  });
  // ensureRoot always reports the folder present, so the lock was taken.
  return report!;
}
