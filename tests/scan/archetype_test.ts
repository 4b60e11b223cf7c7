import { assert, assertEquals } from "@std/assert";
import { scanProject } from "../../lib/scan/scan.ts";
import { type ArchetypeInput, decideArchetype } from "../../lib/scan/_archetype.ts";
import { copyFixture, type FixtureName } from "../support/fixtures.ts";
import { EXPECTED, type Expected } from "../support/fixture_expectations.ts";
import { tempDir } from "../support/temp.ts";

const NOW = new Date("2026-11-29T12:00:00Z");

for (const [name, expected] of Object.entries(EXPECTED) as [FixtureName, Expected][]) {
  Deno.test(`fixture ${name}: archetype, frontendOnly and stack`, async () => {
    await using dir = await tempDir();
    const root = await copyFixture(name, dir.path);
    const { result } = await scanProject(root, NOW);
    assertEquals(result.archetype, expected.archetype);
    assertEquals(result.frontendOnly, expected.frontendOnly);
    assertEquals(result.stack, expected.stack);
    assert(result.frontendOnlyReason.length > 10);
    assert(result.confidence > 0.5 && result.confidence <= 0.95);
    assertEquals(result.walk?.truncated, false);
  });
}

Deno.test("the legacy fixture's constraints name class components, moment and Enzyme", async () => {
  await using dir = await tempDir();
  const root = await copyFixture("legacy-antd-umi", dir.path);
  const { result } = await scanProject(root, NOW);
  const ids = result.legacy?.map((l) => l.id) ?? [];
  for (const id of ["class-components", "moment", "enzyme", "react-legacy", "antd-legacy"]) {
    assert(ids.includes(id), `missing ${id} in ${ids.join(", ")}`);
  }
  const classes = result.legacy?.find((l) => l.id === "class-components");
  assertEquals(classes?.evidence, ["src/pages/dashboard/index.tsx", "src/pages/users/index.tsx"]);
  assertEquals(result.legacyConstraints.length, ids.length);
});

Deno.test("the monorepo fixture lists its workspace packages", async () => {
  await using dir = await tempDir();
  const root = await copyFixture("pnpm-monorepo", dir.path);
  const { result } = await scanProject(root, NOW);
  assertEquals(result.monorepo, {
    tool: "pnpm workspaces",
    packages: ["apps/admin", "apps/web", "packages/ui", "packages/utils"],
  });
});

function input(overrides: Partial<ArchetypeInput>): ArchetypeInput {
  return {
    stack: {},
    services: [],
    legacy: [],
    monorepo: null,
    sourceFiles: 10,
    frontendFiles: [],
    serverDirs: [],
    apiContracts: [],
    lockfile: null,
    empty: false,
    ...overrides,
  };
}

const react = { framework: [{ value: "React 18", evidence: ["package.json: react@^18"] }] };
const express = { backend: [{ value: "Express", evidence: ["package.json: express@^4"] }] };
const jquery = {
  id: "jquery",
  strength: "strong" as const,
  summary: "jQuery",
  rule: "keep it",
  evidence: [],
};

Deno.test("archetype rules: legacy-fullstack, fullstack-monorepo, established size, unknown, empty", () => {
  assertEquals(
    decideArchetype(input({ stack: { ...react, ...express }, legacy: [jquery] })).archetype,
    "legacy-fullstack",
  );
  const mono = decideArchetype(input({
    stack: react,
    services: ["Python (apps/api/pyproject.toml)"],
    monorepo: { tool: "pnpm workspaces", evidence: "pnpm-workspace.yaml", packages: ["apps/web"] },
  }));
  assertEquals(mono.archetype, "fullstack-monorepo");
  assertEquals(mono.frontendOnly, false);
  assertEquals(
    decideArchetype(input({ stack: react, sourceFiles: 450 })).archetype,
    "legacy-frontend",
  );
  assertEquals(decideArchetype(input({ stack: react, sourceFiles: 40 })).archetype, "greenfield");
  const unknown = decideArchetype(input({ sourceFiles: 3 }));
  assertEquals(unknown.archetype, "unknown");
  assertEquals(unknown.frontendOnly, false);
  const empty = decideArchetype(input({ sourceFiles: 0, empty: true }));
  assertEquals(empty.archetype, "greenfield");
  assertEquals(empty.frontendOnly, false);
});

Deno.test("archetype rules: one weak marker is not legacy; with an old lockfile it is", () => {
  const moment = { ...jquery, id: "moment", strength: "weak" as const, summary: "moment" };
  assertEquals(decideArchetype(input({ stack: react, legacy: [moment] })).archetype, "greenfield");
  const old = decideArchetype(input({
    stack: react,
    legacy: [moment],
    lockfile: { path: "yarn.lock", ageDays: 1500 },
  }));
  assertEquals(old.archetype, "legacy-frontend");
  assert(old.signals.some((s) => s.includes("yarn.lock") && s.includes("(old)")));
});

Deno.test("API contracts alone do not make a backend", () => {
  const verdict = decideArchetype(input({ stack: react, apiContracts: ["openapi.yaml"] }));
  assertEquals(verdict.frontendOnly, true);
  assert(verdict.signals.some((s) => s.includes("openapi.yaml")));
  const server = decideArchetype(input({ stack: react, serverDirs: ["server"] }));
  assertEquals(server.frontendOnly, false);
  assertEquals(server.archetype, "greenfield");
});
