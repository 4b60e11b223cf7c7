/**
 * A bounded sample of JS/TS source texts, read once per scan, for the
 * detectors that look inside files (class components, imports, hooks).
 */
import type { ProjectFacts } from "./facts.ts";

export const MAX_SAMPLED_SOURCES = 600;
const MAX_SOURCE_BYTES = 64 * 1024;
const READ_BATCH = 32;

export interface SourceText {
  path: string;
  text: string;
}

const SOURCE = /\.(jsx?|tsx?|mjs|cjs|vue)$/;
const SKIP = /(\.d\.ts|\.min\.js)$|(^|\/)(public|static|assets|fixtures|__mocks__)\//;

export interface SourceSample {
  sources: SourceText[];
  /** Source files that exist in the walk but were not read (over the cap). */
  skipped: number;
}

const samples = new WeakMap<ProjectFacts, Promise<SourceSample>>();

/** Reads up to MAX_SAMPLED_SOURCES source files (memoised per facts object). */
export function sampleSources(facts: ProjectFacts): Promise<SourceSample> {
  let sample = samples.get(facts);
  if (!sample) {
    sample = (async () => {
      const candidates = facts.walk.files.filter((f) => SOURCE.test(f) && !SKIP.test(f));
      const chosen = candidates.slice(0, MAX_SAMPLED_SOURCES);
      // In batches, so a big sample never holds hundreds of files open at once.
      const texts: (string | undefined)[] = [];
      for (let i = 0; i < chosen.length; i += READ_BATCH) {
        texts.push(...await Promise.all(chosen.slice(i, i + READ_BATCH).map((p) => facts.read(p))));
      }
      const sources: SourceText[] = [];
      chosen.forEach((path, i) => {
        const text = texts[i];
        if (text !== undefined) sources.push({ path, text: text.slice(0, MAX_SOURCE_BYTES) });
      });
      return { sources, skipped: candidates.length - chosen.length };
    })();
    samples.set(facts, sample);
  }
  return sample;
}

export const CLASS_COMPONENT =
  /\bclass\s+[A-Z]\w*(?:\s*<[^>{]*>)?\s+extends\s+(?:React\.)?(?:Pure)?Component\b/;

export function importsModule(text: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  return new RegExp(
    `(from\\s+|require\\(\\s*|import\\(\\s*|import\\s+)['"]${escaped}(/[^'"]*)?['"]`,
  ).test(text);
}

export function filesThat(sources: SourceText[], test: (text: string) => boolean): string[] {
  return sources.filter((s) => test(s.text)).map((s) => s.path);
}
