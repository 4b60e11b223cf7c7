/**
 * `skills uninstall` in one skills folder: deletes only the files whose
 * content still matches what peaks wrote, keeps edited ones, never touches
 * anything the manifest does not list, and removes the folders peaks created
 * once they are empty.
 */
import type { Ctx } from "../infra/command/ctx.ts";
import { isNotFound } from "../infra/errors.ts";
import type { AgentId, InstallRoot } from "./agents.ts";
import { type Manifest, manifestPath, readManifest, writeManifest } from "./manifest.ts";
import { pruneAllCreated, pruneCreatedDirs } from "./prune.ts";
import { inspectRoot, present, withRootLock } from "./root.ts";
import { blockedParent, hashFileAt, resolveRel } from "./tree.ts";
import { isoTime } from "../infra/ids.ts";

export interface UninstallOptions {
  force: boolean;
  dryRun: boolean;
  repair: string[];
}

export interface KeptFile {
  path: string;
  reason: "user-modified" | "not-a-file" | "behind-symlink";
}

export interface RootUninstallReport {
  dir: string;
  path: string;
  agents: AgentId[];
  status:
    | "removed"
    | "partly-removed"
    | "released"
    | "not-installed"
    | "would-remove"
    | "would-release";
  removed: string[];
  kept: KeptFile[];
  /** Agents still recorded in this folder (it is shared), whose files stay. */
  remainingAgents: AgentId[];
}

interface UninstallPlan {
  remove: string[];
  kept: KeptFile[];
}

async function planRemoval(
  root: string,
  manifest: Manifest,
  force: boolean,
): Promise<UninstallPlan> {
  const remove: string[] = [];
  const kept: KeptFile[] = [];
  for (const [rel, sha] of Object.entries(manifest.files)) {
    if (await blockedParent(root, rel)) {
      kept.push({ path: rel, reason: "behind-symlink" });
      continue;
    }
    const found = await hashFileAt(resolveRel(root, rel));
    if (found.kind === "missing") continue;
    if (found.kind !== "file") kept.push({ path: rel, reason: "not-a-file" });
    else if (found.sha256 === sha || force) remove.push(rel);
    else kept.push({ path: rel, reason: "user-modified" });
  }
  return { remove, kept };
}

function report(
  root: InstallRoot,
  status: RootUninstallReport["status"],
  fields: Partial<RootUninstallReport> = {},
): RootUninstallReport {
  return {
    dir: root.display,
    path: root.path,
    agents: root.agents,
    status,
    removed: [],
    kept: [],
    remainingAgents: [],
    ...fields,
  };
}

export async function uninstallFromRoot(
  ctx: Ctx,
  root: InstallRoot,
  options: UninstallOptions,
): Promise<RootUninstallReport> {
  const { exists } = await inspectRoot(root);
  if (!exists) return report(root, "not-installed");
  const manifest = await readManifest(root.path, options.repair);
  if (!manifest) return report(root, "not-installed");
  const asked = manifest.agents.filter((a) => root.agents.includes(a));
  const remaining = manifest.agents.filter((a) => !root.agents.includes(a));
  if (asked.length === 0) return report(root, "not-installed", { remainingAgents: remaining });

  if (remaining.length) {
    // A shared folder: the other agents still read these files, so only the record changes.
    if (options.dryRun) return report(root, "would-release", { remainingAgents: remaining });
    await withRootLock(root.path, ctx.env, present(root), async () => {
      const current = await readManifest(root.path, options.repair);
      if (!current) return;
      const agents = current.agents.filter((a) => !root.agents.includes(a));
      if (agents.length) {
        await writeManifest(root.path, { ...current, agents, updatedAt: isoTime(ctx.now()) });
      }
    });
    return report(root, "released", { remainingAgents: remaining });
  }

  if (options.dryRun) {
    const plan = await planRemoval(root.path, manifest, options.force);
    return report(root, "would-remove", { removed: plan.remove, kept: plan.kept });
  }

  let leftDirs: Set<string> | undefined;
  const result = await withRootLock(root.path, ctx.env, present(root), async () => {
    const current = await readManifest(root.path, options.repair);
    if (!current) return report(root, "not-installed");
    const plan = await planRemoval(root.path, current, options.force);
    const created = new Set(current.createdDirs);
    for (const rel of plan.remove) {
      await Deno.remove(resolveRel(root.path, rel)).catch((error) => {
        if (!isNotFound(error)) throw error;
      });
      await pruneCreatedDirs(root, rel, created);
    }
    const keptOurs = plan.kept.filter((k) => k.reason === "user-modified");
    if (keptOurs.length === 0) {
      await Deno.remove(manifestPath(root.path));
      leftDirs = created;
    } else {
      const files = Object.fromEntries(keptOurs.map((k) => [k.path, current.files[k.path]]));
      await writeManifest(root.path, {
        ...current,
        files,
        skills: current.skills.filter((s) => keptOurs.some((k) => k.path.startsWith(`${s}/`))),
        createdDirs: [...created].sort(),
        updatedAt: isoTime(ctx.now()),
      });
    }
    return report(root, plan.kept.length ? "partly-removed" : "removed", {
      removed: plan.remove,
      kept: plan.kept,
    });
  });
  // Once the lock file is gone too, the folders peaks created may be empty.
  if (leftDirs) await pruneAllCreated(root, leftDirs);
  // The folder vanished while waiting: another uninstall removed everything.
  return result ?? report(root, "not-installed");
}
