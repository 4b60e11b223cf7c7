/**
 * The orchestrator's choices for a slice in conflict, each keeping the
 * refused slice's patch where it is (nothing is lost):
 *
 * - keep main:  the main tree stays as it is; the slice's checkout goes.
 * - keep slice: for the conflicting files the slice's version replaces the
 *               main tree's; the rest of its patch is applied as usual.
 * - redo:       the checkout goes and the node becomes dispatchable again, so
 *               the next `--from-dag` call sends it out on top of the main tree
 *               as it is now (its prompt names the earlier patch).
 */
import { dirname } from "../infra/std.ts";
import { PeaksError } from "../infra/errors.ts";
import { resolve } from "../infra/std.ts";
import { writeFileAtomic } from "../infra/fs/files.ts";
import { applyPatch, blobAt } from "./_git.ts";
import { applyAtomically, safeTarget } from "./_apply.ts";
import { removeCheckout, setWorktree, type SliceEntry, type StepContext } from "./_steps.ts";

export type Resolution = "keep-main" | "keep-slice" | "redo";

export function notInConflict(entry: SliceEntry, shown: string): PeaksError {
  return new PeaksError(
    "SLICE_NOT_IN_CONFLICT",
    `${shown} is ${entry.record.worktree.state}, not in conflict: --keep and --redo decide a conflict only.`,
    { exit: 1, data: { recordPath: shown, state: entry.record.worktree.state } },
  );
}

/** Applies one choice; the record moves to merged, discarded or redo and its checkout is removed. */
export async function resolveConflict(
  cx: StepContext,
  entry: SliceEntry,
  choice: Resolution,
): Promise<SliceEntry> {
  if (choice === "keep-slice") {
    await keepSliceFiles(cx, entry);
    const next = await setWorktree(cx, entry, {
      state: "merged",
      note: `kept this slice's version of ${entry.record.worktree.conflict?.files.join(", ")}`,
    });
    return await removeCheckout(cx, next);
  }
  const next = await setWorktree(
    cx,
    entry,
    choice === "redo"
      ? { state: "redo", note: "to be dispatched again on top of the main tree" }
      : { state: "discarded", note: "the main tree was kept" },
  );
  return await removeCheckout(cx, next);
}

/**
 * Writes the slice's version of each conflicting file (from the tree captured
 * from its worktree; a file it deleted is deleted), then applies the rest of
 * its patch. The rest is checked first: a refusal changes nothing more.
 */
async function keepSliceFiles(cx: StepContext, entry: SliceEntry): Promise<void> {
  const wt = entry.record.worktree;
  const files = wt.conflict?.files ?? [];
  const patch = wt.patch ? resolve(cx.project.root, wt.patch) : null;
  const rest = wt.files.filter((f) => !files.includes(f));
  if (patch && rest.length) {
    const check = await applyPatch(cx.place, patch, { check: true, exclude: files });
    // Already applied by an earlier run of this choice that was killed before its record said so.
    const done = !check.ok &&
      (await applyPatch(cx.place, patch, { check: true, reverse: true, exclude: files })).ok;
    if (!check.ok && !done) {
      throw new PeaksError(
        "SLICE_CONFLICT",
        `The rest of the slice's patch no longer applies either (${
          check.err.trim().split("\n")[0]
        }); choose --keep main or --redo.`,
        { exit: 3, data: { patch: wt.patch } },
      );
    }
  }
  const targets = [];
  for (const file of files) {
    const target = await safeTarget(cx.place.toplevel, file);
    targets.push({ target, blob: wt.tree ? await blobAt(cx.place.toplevel, wt.tree, file) : null });
  }
  for (const { target, blob } of targets) await writeSliceFile(target, blob);
  if (
    patch && rest.length &&
    !(await applyPatch(cx.place, patch, { check: true, reverse: true, exclude: files })).ok
  ) {
    const applied = await applyAtomically(cx.place, patch, rest);
    if (!applied.ok) {
      throw new PeaksError(
        "SLICE_APPLY_FAILED",
        `The rest of the slice's patch could not be written (${applied.err}); the kept files are written, every other file is as before. Free the cause and run this again.`,
        { exit: 3, data: { patch: wt.patch } },
      );
    }
  }
}

/** Writes (or removes) one kept file in place of whatever entry is there, never through it. */
async function writeSliceFile(
  target: string,
  blob: { mode: string; bytes: Uint8Array } | null,
): Promise<void> {
  if (!blob) {
    await Deno.remove(target).catch(() => {});
    return;
  }
  await Deno.mkdir(dirname(target), { recursive: true });
  if (blob.mode === "120000") {
    await Deno.remove(target).catch(() => {});
    await Deno.symlink(new TextDecoder().decode(blob.bytes), target);
  } else {
    await writeFileAtomic(target, blob.bytes, { mode: blob.mode === "100755" ? 0o755 : 0o644 });
  }
}
