/**
 * The table of codes and the code that prints them stay in step: every
 * UPPER_SNAKE string literal in lib/ is either a code in the table or the name
 * of an environment variable the binary may read (deno.json's env permission
 * list); every code in the table is used somewhere; docs/errors.md is the
 * table's rendering.
 */
import { assertEquals } from "@std/assert";
import { ERROR_CODES } from "../../lib/infra/error_codes.ts";
import { errorReference } from "../../tools/errors.ts";
import { REPO } from "../support/cli.ts";

const TABLE = "lib/infra/error_codes.ts";
const LITERAL = /["'`]([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)["'`]/g;

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of Deno.readDirSync(`${REPO}/${dir}`)) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory) sourceFiles(rel, out);
    else if (entry.name.endsWith(".ts") && rel !== TABLE) out.push(rel);
  }
  return out;
}

function envPatterns(): RegExp[] {
  const config = JSON.parse(Deno.readTextFileSync(`${REPO}/deno.json`));
  const names: string[] = config.permissions.peaks.env;
  return names.map((n) => new RegExp(`^${n.replaceAll("*", "[A-Z0-9_]*")}$`));
}

function literalsInLib(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of sourceFiles("lib")) {
    for (const match of Deno.readTextFileSync(`${REPO}/${file}`).matchAll(LITERAL)) {
      found.set(match[1], [...(found.get(match[1]) ?? []), file]);
    }
  }
  return found;
}

const known = new Set(Object.keys(ERROR_CODES));
const literals = literalsInLib();

Deno.test("every code lib/ can print is in lib/infra/error_codes.ts", () => {
  const env = envPatterns();
  const unknown = [...literals]
    .filter(([code]) => !known.has(code) && !env.some((p) => p.test(code)))
    .map(([code, files]) => `${code} (${[...new Set(files)].join(", ")})`);
  assertEquals(unknown, [], "add these codes to the table, then run `deno task docs`");
});

Deno.test("every code in the table is used in lib/", () => {
  assertEquals([...known].filter((code) => !literals.has(code)), []);
});

Deno.test("the table lists codes once each, sorted, each with a meaning and a repair", () => {
  const codes = Object.keys(ERROR_CODES);
  assertEquals(codes, [...codes].sort());
  const thin = Object.entries(ERROR_CODES)
    .filter(([, [exits, meaning, repair]]) => !exits.length || !meaning || !repair)
    .map(([code]) => code);
  assertEquals(thin, []);
});

Deno.test("docs/errors.md matches the table (run `deno task docs` after changing it)", () => {
  assertEquals(Deno.readTextFileSync(`${REPO}/docs/errors.md`), errorReference());
});
