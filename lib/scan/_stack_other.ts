/**
 * Languages other than JS/TS, recognised by their manifests: Python, Go,
 * Rust, Java/Kotlin (and PHP, Ruby by name). Each gives at least the
 * language and the build tool; frameworks and test runners when the
 * manifest names them. Manifests are looked for at most two folders deep.
 */
import { filesMatching, type ProjectFacts } from "./facts.ts";
import type { Finding, StackField, StackFindings } from "./_stack_js.ts";

export interface OtherStack {
  findings: StackFindings;
  /** One entry per non-JS service found, e.g. "Python (pyproject.toml)". */
  services: string[];
}

const NEAR_ROOT = (name: string) => new RegExp(`^([^/]+/){0,2}${name.replace(/\./g, "\\.")}$`);

function add(out: StackFindings, field: StackField, finding: Finding | undefined): void {
  if (!finding) return;
  const list = out[field] ??= [];
  const same = list.find((f) => f.value === finding.value);
  if (same) same.evidence.push(...finding.evidence.filter((e) => !same.evidence.includes(e)));
  else list.push(finding);
}

/** Dependency-name check for manifests we only read as text. */
function mentions(text: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  return new RegExp(`(^|[\\s"'\\[,=/:])${escaped}($|[\\s"'\\],=<>~!;:\\[])`, "im").test(text);
}

function firstMention(
  text: string,
  where: string,
  table: [string, string][],
): Finding | undefined {
  for (const [name, label] of table) {
    if (mentions(text, name)) return { value: label, evidence: [`${where}: ${name}`] };
  }
  return undefined;
}

const PY_FRAMEWORKS: [string, string][] = [
  ["fastapi", "FastAPI"],
  ["django", "Django"],
  ["flask", "Flask"],
  ["starlette", "Starlette"],
  ["litestar", "Litestar"],
  ["aiohttp", "aiohttp"],
  ["tornado", "Tornado"],
  ["sanic", "Sanic"],
];

async function python(facts: ProjectFacts, out: OtherStack): Promise<void> {
  const found = filesMatching(
    facts,
    /^([^/]+\/){0,2}(pyproject\.toml|requirements[^/]*\.txt|setup\.py|setup\.cfg|Pipfile)$/,
  );
  // Requirements for docs sites or tooling scripts do not make a Python service.
  const manifests = found.filter((m) => !/^(docs?|scripts|tools|\.github)\//.test(m));
  if (!manifests.length) return;
  const texts = await Promise.all(manifests.map(async (m) => [m, (await facts.read(m)) ?? ""]));
  const all = texts.map(([, t]) => t).join("\n");
  const version = /requires-python\s*=\s*["'][^"'\d]*(\d+\.\d+)/.exec(all)?.[1] ??
    /^\s*python\s*=\s*["'][^"'\d]*(\d+\.\d+)/m.exec(all)?.[1];
  add(out.findings, "language", {
    value: version ? `Python ${version}` : "Python",
    evidence: [manifests[0]],
  });
  const has = (re: RegExp) => filesMatching(facts, re)[0];
  const build = /\[tool\.poetry\]|poetry\.core\.masonry|poetry-core/.test(all)
    ? "Poetry"
    : has(NEAR_ROOT("uv.lock"))
    ? "uv"
    : /hatchling/.test(all)
    ? "Hatch"
    : /pdm[.-]backend|\[tool\.pdm\]/.test(all)
    ? "PDM"
    : /flit_core/.test(all)
    ? "Flit"
    : has(NEAR_ROOT("Pipfile"))
    ? "Pipenv"
    : /setuptools/.test(all) || has(NEAR_ROOT("setup.py"))
    ? "setuptools"
    : "pip (requirements.txt)";
  add(out.findings, "buildTool", { value: build, evidence: [manifests[0]] });
  for (const [where, text] of texts) {
    add(out.findings, "backend", firstMention(text, where, PY_FRAMEWORKS));
  }
  const pytest = texts.find(([, t]) => mentions(t, "pytest") || /\[tool\.pytest/.test(t));
  const pytestIni = has(/^([^/]+\/){0,2}(pytest\.ini|conftest\.py)$/);
  if (pytest || pytestIni) {
    add(out.findings, "testRunner", {
      value: "pytest",
      evidence: [pytest ? `${pytest[0]}: pytest` : pytestIni!],
    });
  }
  out.services.push(`Python (${manifests[0]})`);
}

const GO_FRAMEWORKS: [string, string][] = [
  ["github.com/gin-gonic/gin", "Gin"],
  ["github.com/labstack/echo/v4", "Echo"],
  ["github.com/labstack/echo", "Echo"],
  ["github.com/gofiber/fiber/v2", "Fiber"],
  ["github.com/go-chi/chi/v5", "chi"],
  ["github.com/gorilla/mux", "Gorilla mux"],
  ["google.golang.org/grpc", "gRPC"],
];

async function go(facts: ProjectFacts, out: OtherStack): Promise<void> {
  const mod = filesMatching(facts, NEAR_ROOT("go.mod"))[0];
  if (!mod) return;
  const text = (await facts.read(mod)) ?? "";
  const version = /^go\s+(\d+\.\d+)/m.exec(text)?.[1];
  add(out.findings, "language", { value: version ? `Go ${version}` : "Go", evidence: [mod] });
  add(out.findings, "buildTool", { value: "Go modules", evidence: [mod] });
  add(out.findings, "backend", firstMention(text, mod, GO_FRAMEWORKS));
  const tests = filesMatching(facts, /_test\.go$/);
  if (tests.length) add(out.findings, "testRunner", { value: "go test", evidence: [tests[0]] });
  out.services.push(`Go (${mod})`);
}

async function rust(facts: ProjectFacts, out: OtherStack): Promise<void> {
  const cargo = filesMatching(facts, NEAR_ROOT("Cargo.toml"))[0];
  if (!cargo) return;
  const text = (await facts.read(cargo)) ?? "";
  add(out.findings, "language", { value: "Rust", evidence: [cargo] });
  add(out.findings, "buildTool", { value: "Cargo", evidence: [cargo] });
  add(
    out.findings,
    "backend",
    firstMention(text, cargo, [
      ["actix-web", "Actix Web"],
      ["axum", "Axum"],
      ["rocket", "Rocket"],
      ["warp", "warp"],
      ["tonic", "tonic (gRPC)"],
    ]),
  );
  const tests = filesMatching(facts, /^([^/]+\/)?tests\/[^/]+\.rs$/);
  if (tests.length) add(out.findings, "testRunner", { value: "cargo test", evidence: [tests[0]] });
  out.services.push(`Rust (${cargo})`);
}

async function jvm(facts: ProjectFacts, out: OtherStack): Promise<void> {
  const pom = filesMatching(facts, NEAR_ROOT("pom.xml"))[0];
  const gradle = filesMatching(facts, /^([^/]+\/){0,2}build\.gradle(\.kts)?$/)[0];
  const manifest = pom ?? gradle;
  if (!manifest) return;
  const text = (await facts.read(manifest)) ?? "";
  const kotlin = filesMatching(facts, /\.kt$/).length > 0 || /kotlin/.test(text);
  add(out.findings, "language", { value: kotlin ? "Kotlin" : "Java", evidence: [manifest] });
  add(out.findings, "buildTool", { value: pom ? "Maven" : "Gradle", evidence: [manifest] });
  const framework = /spring-boot/.test(text)
    ? "Spring Boot"
    : /quarkus/.test(text)
    ? "Quarkus"
    : /micronaut/.test(text)
    ? "Micronaut"
    : undefined;
  if (framework) add(out.findings, "backend", { value: framework, evidence: [manifest] });
  const junit = /junit-jupiter|junit5/.test(text) ? "JUnit 5" : /junit/.test(text) ? "JUnit" : "";
  const testng = /testng/.test(text) ? "TestNG" : "";
  const runner = junit || testng;
  if (runner) add(out.findings, "testRunner", { value: runner, evidence: [manifest] });
  out.services.push(`${kotlin ? "Kotlin" : "Java"} (${manifest})`);
}

async function byName(facts: ProjectFacts, out: OtherStack): Promise<void> {
  const composer = filesMatching(facts, NEAR_ROOT("composer.json"))[0];
  if (composer) {
    const text = (await facts.read(composer)) ?? "";
    add(out.findings, "language", { value: "PHP", evidence: [composer] });
    add(out.findings, "buildTool", { value: "Composer", evidence: [composer] });
    if (/laravel\/framework/.test(text)) {
      add(out.findings, "backend", { value: "Laravel", evidence: [composer] });
    }
    out.services.push(`PHP (${composer})`);
  }
  const gemfile = filesMatching(facts, NEAR_ROOT("Gemfile"))[0];
  if (gemfile) {
    const text = (await facts.read(gemfile)) ?? "";
    add(out.findings, "language", { value: "Ruby", evidence: [gemfile] });
    add(out.findings, "buildTool", { value: "Bundler", evidence: [gemfile] });
    if (mentions(text, "rails")) {
      add(out.findings, "backend", { value: "Ruby on Rails", evidence: [gemfile] });
    }
    out.services.push(`Ruby (${gemfile})`);
  }
}

export async function detectOtherStacks(facts: ProjectFacts): Promise<OtherStack> {
  const out: OtherStack = { findings: {}, services: [] };
  await python(facts, out);
  await go(facts, out);
  await rust(facts, out);
  await jvm(facts, out);
  await byName(facts, out);
  return out;
}
