/** The project archetypes a scan can find (result.ts). */
export const ARCHETYPES = [
  "greenfield",
  "legacy-frontend",
  "legacy-fullstack",
  "frontend-monorepo",
  "fullstack-monorepo",
  "unknown",
] as const;
export type Archetype = (typeof ARCHETYPES)[number];

/** Archetypes whose existing conventions new code must keep. */
export const LEGACY_ARCHETYPES: readonly Archetype[] = [
  "legacy-frontend",
  "legacy-fullstack",
  "frontend-monorepo",
];
