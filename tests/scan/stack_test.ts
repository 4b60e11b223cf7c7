import { assertEquals } from "@std/assert";
import { scanProject } from "../../lib/scan/scan.ts";
import { globMatcher, majorOf, pnpmWorkspaceGlobs } from "../../lib/scan/facts.ts";
import { tempDir, writeText } from "../support/temp.ts";

const NOW = new Date("2026-11-29T12:00:00Z");

async function project(files: Record<string, string>) {
  const dir = await tempDir();
  for (const [rel, text] of Object.entries(files)) await writeText(`${dir.path}/${rel}`, text);
  return dir;
}

function pkg(deps: Record<string, string>, dev: Record<string, string> = {}): string {
  return JSON.stringify({ name: "x", dependencies: deps, devDependencies: dev });
}

Deno.test("a Create React App + Material-UI 4 + Redux project", async () => {
  await using dir = await project({
    "package.json": pkg(
      {
        react: "^17.0.2",
        "@material-ui/core": "^4.12.4",
        redux: "^4.2.1",
        "react-redux": "^7.2.9",
      },
      { "react-scripts": "5.0.1", "styled-components": "^5.3.11" },
    ),
    "src/App.jsx": "export default function App() { return null }",
  });
  const { result } = await scanProject(dir.path, NOW);
  assertEquals(result.stack, {
    language: "JavaScript",
    framework: "React 17",
    componentLibrary: "Material-UI 4",
    css: "styled-components",
    buildTool: "Create React App",
    stateManagement: "Redux",
    routing: null,
    testRunner: "Jest",
    backend: null,
  });
  assertEquals(result.legacy?.map((l) => l.id), ["material-ui-v4"]);
  assertEquals(result.archetype, "legacy-frontend");
});

Deno.test("a Vue 2 + Element UI + Vuex + webpack 4 project is legacy-frontend", async () => {
  await using dir = await project({
    "package.json": pkg(
      { vue: "^2.6.14", "element-ui": "^2.15.14", vuex: "^3.6.2", "vue-router": "^3.6.5" },
      { webpack: "^4.46.0", sass: "^1.32.0", mocha: "^10.0.0" },
    ),
    "src/App.vue": "<template><div/></template>",
    "src/styles/main.scss": "a{}",
  });
  const { result } = await scanProject(dir.path, NOW);
  assertEquals(result.stack.framework, "Vue 2");
  assertEquals(result.stack.componentLibrary, "Element UI");
  assertEquals(result.stack.css, "Sass");
  assertEquals(result.stack.buildTool, "webpack 4");
  assertEquals(result.stack.stateManagement, "Vuex");
  assertEquals(result.stack.routing, "Vue Router 3");
  assertEquals(result.stack.testRunner, "Mocha");
  assertEquals(result.legacy?.map((l) => l.id), ["vue2", "webpack-legacy"]);
  assertEquals(result.archetype, "legacy-frontend");
  assertEquals(result.frontendOnly, true);
});

Deno.test("Next.js app router with shadcn/ui and Tailwind", async () => {
  await using dir = await project({
    "package.json": pkg(
      { next: "15.0.0", react: "19.0.0", "@radix-ui/react-dialog": "^1.1.2" },
      { tailwindcss: "^3.4.0", typescript: "^5", "@playwright/test": "^1.48.0", vitest: "^2" },
    ),
    "components.json": "{}",
    "app/layout.tsx": "export default function L() { return null }",
    "app/page.tsx": "export default function P() { return null }",
  });
  const { result } = await scanProject(dir.path, NOW);
  assertEquals(result.stack.componentLibrary, "shadcn/ui");
  assertEquals(result.stack.css, "Tailwind CSS");
  assertEquals(result.stack.buildTool, "Next.js 15");
  assertEquals(result.stack.routing, "Next.js file-system routing (app/)");
  assertEquals(result.stack.testRunner, "Vitest + Playwright");
  assertEquals(result.frontendOnly, true, "no route handlers: nothing server-side yet");
  assertEquals(result.archetype, "greenfield");
});

Deno.test("Go, Rust, Java and Kotlin are recognised by language and build tool", async () => {
  const cases: [Record<string, string>, Partial<Record<string, string | null>>][] = [
    [
      {
        "go.mod": "module x\n\ngo 1.22\n\nrequire github.com/gin-gonic/gin v1.10.0\n",
        "main_test.go": "",
      },
      { language: "Go 1.22", buildTool: "Go modules", backend: "Gin", testRunner: "go test" },
    ],
    [
      {
        "Cargo.toml": '[package]\nname = "x"\n\n[dependencies]\naxum = "0.7"\n',
        "tests/api.rs": "",
      },
      { language: "Rust", buildTool: "Cargo", backend: "Axum", testRunner: "cargo test" },
    ],
    [
      {
        "pom.xml":
          "<project><parent><artifactId>spring-boot-starter-parent</artifactId></parent><dependency><artifactId>junit-jupiter</artifactId></dependency></project>",
      },
      { language: "Java", buildTool: "Maven", backend: "Spring Boot", testRunner: "JUnit 5" },
    ],
    [
      {
        "build.gradle.kts": 'plugins { kotlin("jvm") version "2.0.0" }',
        "src/main/kotlin/App.kt": "",
      },
      { language: "Kotlin", buildTool: "Gradle" },
    ],
    [
      { "requirements.txt": "flask==3.0.3\npytest==8.3.3\n" },
      {
        language: "Python",
        buildTool: "pip (requirements.txt)",
        backend: "Flask",
        testRunner: "pytest",
      },
    ],
  ];
  for (const [files, expected] of cases) {
    await using dir = await project(files);
    const { result } = await scanProject(dir.path, NOW);
    for (const [key, value] of Object.entries(expected)) {
      assertEquals(
        result.stack[key as keyof typeof result.stack],
        value,
        `${key} for ${Object.keys(files)[0]}`,
      );
    }
    assertEquals(result.frontendOnly, false);
  }
});

Deno.test("requirements for a docs site do not turn a frontend into a fullstack project", async () => {
  await using dir = await project({
    "package.json": pkg({ react: "^18.2.0" }, { vite: "^5.0.0" }),
    "docs/requirements.txt": "mkdocs==1.6.0\n",
    "src/main.tsx": "",
  });
  const { result } = await scanProject(dir.path, NOW);
  assertEquals(result.frontendOnly, true);
  assertEquals(result.languages, ["TypeScript"]);
});

Deno.test("workspace globs: pnpm yaml lists and glob matching", () => {
  assertEquals(
    pnpmWorkspaceGlobs(
      "packages:\n  - 'apps/*'\n  - \"packages/**\" # libs\n  - '!**/test/**'\nother: 1\n",
    ),
    ["apps/*", "packages/**", "!**/test/**"],
  );
  assertEquals(pnpmWorkspaceGlobs("packages: [apps/*, 'libs/*']\n"), ["apps/*", "libs/*"]);
  assertEquals(globMatcher("apps/*").test("apps/web"), true);
  assertEquals(globMatcher("apps/*").test("apps/web/sub"), false);
  assertEquals(globMatcher("packages/**").test("packages/a/b"), true);
  assertEquals(majorOf("^4.24.0"), 4);
  assertEquals(majorOf("~3.5"), 3);
  assertEquals(majorOf("workspace:*"), undefined);
  assertEquals(majorOf("npm:react@18.2.0"), 18);
});

Deno.test("an unparsable package.json is a warning, not a crash", async () => {
  await using dir = await project({ "package.json": "{ not json", "index.js": "" });
  const { result, problems } = await scanProject(dir.path, NOW);
  assertEquals(problems.length, 1);
  assertEquals(result.stack.language, "JavaScript");
});
