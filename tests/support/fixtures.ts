/** Fixture projects under tests/fixtures/projects, copied into temp dirs (never used in place). */
import { join } from "../../lib/infra/std.ts";
import { REPO } from "./cli.ts";

export const FIXTURES = join(REPO, "tests", "fixtures", "projects");

export const FIXTURE_NAMES = [
  "greenfield-react-vite",
  "legacy-antd-umi",
  "next-fullstack",
  "pnpm-monorepo",
  "python-service",
] as const;
export type FixtureName = (typeof FIXTURE_NAMES)[number];

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory) await copyTree(source, target);
    else if (entry.isFile) await Deno.copyFile(source, target);
  }
}

/** Copies a fixture into `dir` (or `dir/<sub>`) and returns the copy's path. */
export async function copyFixture(
  name: FixtureName,
  dir: string,
  sub: string = name,
): Promise<string> {
  const target = join(dir, sub);
  await copyTree(join(FIXTURES, name), target);
  return target;
}

/** Every file under `root` with its content, for before/after comparisons. */
export async function snapshot(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  async function walk(dir: string, rel: string): Promise<void> {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      const name = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory) {
        out[`${name}/`] = "";
        await walk(path, name);
      } else if (entry.isSymlink) out[name] = `-> ${await Deno.readLink(path)}`;
      else out[name] = await Deno.readTextFile(path);
    }
  }
  await walk(root, "");
  return out;
}
