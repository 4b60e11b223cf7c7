/**
 * The modules peaks loads only through a string-literal `import()`: each
 * command module of the table and the few lazy helpers (headroom, the
 * zod schemas a shape doubts). deno.json turns on Deno's
 * `lazy-dynamic-imports`, so `deno run` reads a command's files only when it
 * runs; `deno compile` builds its graph the same way, so each of these
 * modules is handed to it as an `--include` root to be embedded.
 */
import { join } from "../lib/infra/std.ts";
import { REPO_ROOT } from "./package.ts";

const LAZY_IMPORT = /\bimport\(\s*"([^"]+)"\s*\)/g;

function* sources(dir: string): Generator<string> {
  for (const entry of Deno.readDirSync(join(REPO_ROOT, dir))) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* sources(path);
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith("_test.ts")) yield path;
  }
}

/** `a/b/../c.ts` as `a/c.ts`. */
function collapse(path: string): string {
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== ".") parts.push(part);
  }
  return parts.join("/");
}

/** Repository-relative files and import-map targets of every lazy import under lib/, sorted. */
export function lazyModules(): string[] {
  const imports = JSON.parse(Deno.readTextFileSync(join(REPO_ROOT, "deno.json"))).imports as Record<
    string,
    string
  >;
  const found = new Set<string>();
  for (const file of ["peaks.ts", ...sources("lib")]) {
    const text = Deno.readTextFileSync(join(REPO_ROOT, file));
    for (const [, specifier] of text.matchAll(LAZY_IMPORT)) {
      if (specifier.startsWith("node:")) continue;
      if (specifier.startsWith(".")) {
        found.add(collapse(`${file.slice(0, file.lastIndexOf("/") + 1)}${specifier}`));
      } else if (imports[specifier]) found.add(imports[specifier]);
      else throw new Error(`${file}: lazy import of ${specifier} is not in deno.json's imports`);
    }
  }
  return [...found].sort();
}
