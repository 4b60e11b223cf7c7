/**
 * The JS/TS side of the stack: evaluates the rule tables against the
 * project's manifests and files, plus the few facts a table cannot express
 * (Umi's routes and dva plugin, Next.js's router flavour).
 */
import {
  depEvidence,
  type DepHit,
  filesMatching,
  findDep,
  findDepPrefix,
  type ProjectFacts,
} from "./facts.ts";
import { type Candidate, JS_RULES } from "./_stack_rules.ts";

export interface Finding {
  value: string;
  evidence: string[];
}

export type StackField =
  | "language"
  | "framework"
  | "componentLibrary"
  | "css"
  | "buildTool"
  | "stateManagement"
  | "routing"
  | "testRunner"
  | "backend";

export type StackFindings = Partial<Record<StackField, Finding[]>>;

function fileEvidence(files: string[]): string {
  return files.length > 1 ? `${files[0]} (+${files.length - 1} more)` : files[0];
}

function evaluate(facts: ProjectFacts, candidate: Candidate): Finding | undefined {
  let hit: DepHit | undefined;
  for (const name of candidate.deps ?? []) {
    hit = findDep(facts, name);
    if (hit) break;
  }
  if (!hit && candidate.prefix) hit = findDepPrefix(facts, candidate.prefix);
  const files = candidate.files ? filesMatching(facts, candidate.files) : [];
  const hasDepRule = Boolean(candidate.deps || candidate.prefix);
  const matched = candidate.needsBoth
    ? Boolean(hit) && files.length > 0
    : Boolean(hit) || files.length > 0;
  if (!matched) return undefined;
  if (candidate.unlessDeps?.some((name) => findDep(facts, name))) return undefined;
  const evidence: string[] = [];
  if (hit) evidence.push(depEvidence(hit));
  // When files are what make the match (API routes), they lead the evidence.
  if (files.length) evidence[candidate.needsBoth ? "unshift" : "push"](fileEvidence(files));
  const label = typeof candidate.label === "function"
    ? candidate.label(hasDepRule ? hit : undefined)
    : candidate.label;
  return { value: label, evidence };
}

function baseLabel(value: string): string {
  return value.replace(/ \d+$/, "");
}

function evaluateField(facts: ProjectFacts, field: keyof typeof JS_RULES): Finding[] {
  const rules = JS_RULES[field];
  const found: Finding[] = [];
  for (const candidate of rules.candidates) {
    if (found.length >= rules.max) break;
    if (candidate.unlessLabel?.some((l) => found.some((f) => baseLabel(f.value) === l))) continue;
    const finding = evaluate(facts, candidate);
    if (finding && !found.some((f) => f.value === finding.value)) found.push(finding);
  }
  return found;
}

const UMI_CONFIG = /^(\.umirc\.[jt]s|config\/config\.[jt]s)$/;

async function umiFacts(facts: ProjectFacts): Promise<{ routing?: Finding; state?: Finding }> {
  const umi = findDep(facts, "umi") ?? findDep(facts, "@umijs/max");
  if (!umi) return {};
  const configFile = filesMatching(facts, UMI_CONFIG)[0];
  const config = configFile ? (await facts.read(configFile)) ?? "" : "";
  const routing: Finding = /\broutes\s*:/.test(config)
    ? { value: "Umi config routes", evidence: [`${configFile}: routes`] }
    : { value: "Umi convention routes (src/pages)", evidence: [depEvidence(umi)] };
  const models = filesMatching(facts, /^src\/models\/[^/]+\.[jt]sx?$/);
  let state: Finding | undefined;
  if (umi.name === "@umijs/max" && models.length) {
    state = { value: "Umi models (useModel)", evidence: [fileEvidence(models)] };
  } else if (/\bdva\s*:/.test(config) || (findDep(facts, "@umijs/preset-react") && models.length)) {
    const evidence = /\bdva\s*:/.test(config) ? [`${configFile}: dva`] : [];
    if (models.length) evidence.push(fileEvidence(models));
    state = { value: "dva", evidence };
  }
  return { routing, state };
}

function nextRouting(facts: ProjectFacts): Finding | undefined {
  const next = findDep(facts, "next");
  if (!next) return undefined;
  const app = filesMatching(facts, /^(src\/)?app\/(.+\/)?(page|layout)\.[jt]sx?$/);
  const pages = filesMatching(facts, /^(src\/)?pages\/.+\.[jt]sx?$/);
  const parts: string[] = [];
  if (app.length) parts.push("app/");
  if (pages.length) parts.push("pages/");
  return {
    value: `Next.js file-system routing${parts.length ? ` (${parts.join(" + ")})` : ""}`,
    evidence: [
      depEvidence(next),
      ...(app.length ? [fileEvidence(app)] : []),
      ...(
        pages.length ? [fileEvidence(pages)] : []
      ),
    ],
  };
}

function language(facts: ProjectFacts): Finding | undefined {
  const ts = findDep(facts, "typescript");
  const tsconfig = filesMatching(facts, /(^|\/)tsconfig(\.[^/]+)?\.json$/);
  const tsFiles = filesMatching(facts, /\.(ts|tsx|mts|cts)$/).filter((f) => !f.endsWith(".d.ts"));
  if (ts || tsconfig.length || tsFiles.length) {
    const evidence: string[] = [];
    if (ts) evidence.push(depEvidence(ts));
    if (tsconfig.length) evidence.push(fileEvidence(tsconfig));
    if (tsFiles.length) evidence.push(`${tsFiles.length} .ts/.tsx files`);
    return { value: "TypeScript", evidence };
  }
  const jsFiles = filesMatching(facts, /\.(js|jsx|mjs|cjs|vue|svelte)$/);
  if (facts.packages.length || jsFiles.length) {
    return {
      value: "JavaScript",
      evidence: [
        ...(facts.packages.length ? [facts.packages[0].path] : []),
        ...(jsFiles.length ? [`${jsFiles.length} .js/.jsx files`] : []),
      ],
    };
  }
  return undefined;
}

/** Node's built-in runner, named by a package script (`node --test`, `node --test test/`). */
function nodeTestRunner(facts: ProjectFacts): Finding | undefined {
  for (const pkg of facts.packages) {
    for (const [name, script] of Object.entries(pkg.scripts)) {
      if (/(^|[\s;&|(])node(\s+[^;&|]*)?\s--test\b/.test(script)) {
        return {
          value: "node:test",
          evidence: [`${pkg.path} scripts.${name}: ${script.slice(0, 60)}`],
        };
      }
    }
  }
  return undefined;
}

/** The JS/TS stack; empty when the project has no JS/TS at all. */
export async function detectJsStack(facts: ProjectFacts): Promise<StackFindings> {
  const lang = language(facts);
  if (!lang) return {};
  const out: StackFindings = { language: [lang] };
  for (const field of Object.keys(JS_RULES) as (keyof typeof JS_RULES)[]) {
    const found = evaluateField(facts, field);
    if (found.length) out[field as StackField] = found;
  }
  const nodeTest = nodeTestRunner(facts);
  if (nodeTest) {
    out.testRunner = [...(out.testRunner ?? []), nodeTest].slice(0, JS_RULES.testRunner.max);
  }
  const umi = await umiFacts(facts);
  const next = nextRouting(facts);
  const routing = umi.routing ?? next;
  if (routing) out.routing = [routing];
  if (umi.state && !out.stateManagement?.some((f) => f.value === "dva")) {
    out.stateManagement = [umi.state, ...(out.stateManagement ?? [])].slice(0, 2);
  }
  return out;
}
