/** The zod schemas of a record's `worktree` field (worktree.ts); loaded with the record's. */
import { z } from "../infra/zod.ts";
import { WORKTREE_STATES } from "../record/names.ts";

const iso = z.string().min(1);

export const SliceConflictSchema = z.looseObject({
  /** Repository-relative files the patch could not be applied to. */
  files: z.array(z.string()),
  /** The slices already merged that changed those files. */
  with: z.array(z.looseObject({ node: z.string().nullable(), recordPath: z.string() })),
  /** Some of the files changed in the main tree itself since the slice started. */
  main: z.boolean(),
  message: z.string(),
});
export type SliceConflict = z.infer<typeof SliceConflictSchema>;

export const SliceWorktreeSchema = z.looseObject({
  /** peaks: peaks made it; host: the host's own sub-agent isolation (Claude Code) made it. */
  kind: z.enum(["peaks", "host"]),
  state: z.enum(WORKTREE_STATES),
  node: z.string().nullable(),
  /** [level, position in level]: the DAG order slices are merged in. */
  order: z.tuple([z.number().int(), z.number().int()]).nullable(),
  owns: z.array(z.string()),
  /** Absolute path of the checkout (null for a host worktree until its path is known). */
  path: z.string().nullable(),
  /** Absolute path of the project's folder inside the checkout. */
  projectDir: z.string().nullable(),
  branch: z.string().nullable(),
  /** The commit the slice started from (a snapshot of the main tree, uncommitted changes included). */
  base: z.string().nullable(),
  /** The checkout's HEAD and the tree of its files when the change was captured. */
  head: z.string().nullable(),
  tree: z.string().nullable(),
  /** Project-relative path of the saved patch. */
  patch: z.string().nullable(),
  /** Repository-relative files the patch changes. */
  files: z.array(z.string()),
  conflict: SliceConflictSchema.nullable(),
  note: z.string().nullable(),
  removedAt: iso.nullable(),
  updatedAt: iso,
});
export type SliceWorktree = z.infer<typeof SliceWorktreeSchema>;
