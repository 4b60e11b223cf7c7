/**
 * The record peaks keeps in each skills folder it installs into: which files
 * it wrote and their SHA-256 at the time. Upgrade and uninstall touch a file
 * only while its content still matches this record, so a user's edit is
 * never overwritten or deleted by accident.
 */
import { z } from "../infra/zod.ts";
import { writeJsonAtomic } from "../infra/fs/files.ts";
import { readValidated } from "../infra/fs/json.ts";
import { join } from "../infra/std.ts";
import { AGENT_IDS } from "./agents.ts";
import { SKILL_NAME_PATTERN } from "./_frontmatter.ts";
import { isSafeRelPath } from "./tree.ts";

export const MANIFEST_NAME = ".peaks-skills-manifest.json";

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, "must be a hex SHA-256");
const RelPath = z.string().refine(isSafeRelPath, "must be a plain relative path");

export const ManifestSchema = z.object({
  manifestVersion: z.literal(1),
  /** The peaks version that last wrote this folder. */
  version: z.string().min(1),
  installedAt: z.string().min(1),
  updatedAt: z.string().min(1),
  source: z.object({
    kind: z.enum(["env", "binary", "repository", "embedded"]),
    path: z.string(),
  }),
  /** The agents this folder was installed for (several may share one folder). */
  agents: z.array(z.enum(AGENT_IDS)).min(1),
  skills: z.array(z.string().regex(SKILL_NAME_PATTERN)),
  /** File (relative to the skills folder) -> SHA-256 of what peaks wrote. */
  files: z.record(RelPath, Sha256),
  /** Folders peaks created, relative to the scope's base folder; removed when empty. */
  createdDirs: z.array(RelPath),
}).superRefine((value, context) => {
  for (const rel of Object.keys(value.files)) {
    if (!value.skills.includes(rel.split("/")[0]) || !rel.includes("/")) {
      context.addIssue({
        code: "custom",
        path: ["files", rel],
        message: "lies outside the skills this manifest lists",
      });
    }
  }
});

export type Manifest = z.infer<typeof ManifestSchema>;

export function manifestPath(root: string): string {
  return join(root, MANIFEST_NAME);
}

export function readManifest(root: string, repair: string[]): Promise<Manifest | undefined> {
  return readValidated(manifestPath(root), ManifestSchema, { what: "skills manifest", repair });
}

export async function writeManifest(root: string, manifest: Manifest): Promise<void> {
  await writeJsonAtomic(manifestPath(root), ManifestSchema.parse(manifest));
}

/** The manifest without its timestamps, to tell whether a rewrite would change anything. */
export function manifestContent(manifest: Manifest | undefined): string {
  if (!manifest) return "";
  const { installedAt: _i, updatedAt: _u, ...rest } = manifest;
  const files = Object.fromEntries(Object.entries(rest.files).sort(([a], [b]) => a < b ? -1 : 1));
  return JSON.stringify({
    ...rest,
    files,
    agents: [...rest.agents].sort(),
    skills: [...rest.skills].sort(),
    createdDirs: [...rest.createdDirs].sort(),
  });
}
