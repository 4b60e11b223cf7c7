/**
 * Conventions an existing codebase already follows (naming, folders, the
 * service layer, hooks, state, styling), read from its files. What cannot be
 * read reliably is left as a `TO COMPLETE` line for the skill to fill in.
 */
import type { ProjectFacts } from "./facts.ts";
import {
  CLASS_COMPONENT,
  filesThat,
  importsModule,
  sampleSources,
  type SourceText,
} from "./_sources.ts";

export const TO_COMPLETE = "TO COMPLETE";

export interface Conventions {
  naming: string[];
  directory: string[];
  serviceLayer: string[];
  hooks: string[];
  state: string[];
  styling: string[];
}

export const CONVENTION_SECTIONS: [keyof Conventions, string][] = [
  ["naming", "Naming"],
  ["directory", "Directory layout"],
  ["serviceLayer", "Service layer"],
  ["hooks", "Hooks"],
  ["state", "State management"],
  ["styling", "Styling"],
];

const COMPONENT_EXT = "(tsx|jsx|vue|svelte|ts|js)";
const FOLDER_ROLES: Record<string, string> = {
  pages: "route pages",
  views: "route views",
  app: "app router segments",
  components: "shared components",
  layouts: "page layouts",
  services: "API calls",
  service: "API calls",
  api: "API calls",
  apis: "API calls",
  models: "state models",
  store: "state store",
  stores: "state stores",
  hooks: "custom hooks",
  utils: "shared utilities",
  lib: "shared utilities and clients",
  locales: "translations",
  assets: "static assets",
  styles: "global styles",
  constants: "constants",
  types: "shared types",
  routers: "HTTP routers",
  routes: "routes",
  mock: "mock API data",
  config: "build and runtime config",
};

function sample(files: string[], max = 2): string {
  return files.slice(0, max).map((f) => `\`${f}\``).join(", ");
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function naming(files: string[]): string[] {
  const out: string[] = [];
  const inComponents = files.filter((f) => /(^|\/)components\//.test(f));
  const folderIndex = inComponents.filter((f) =>
    new RegExp(`components/(.+/)?[A-Z][A-Za-z0-9]*/index\\.${COMPONENT_EXT}$`).test(f)
  );
  const pascalFiles = inComponents.filter((f) =>
    new RegExp(`/[A-Z][A-Za-z0-9]*\\.${COMPONENT_EXT}$`).test(f) && !/\.(test|spec)\./.test(f)
  );
  const kebabFiles = inComponents.filter((f) =>
    new RegExp(`/[a-z0-9]+(-[a-z0-9]+)+\\.${COMPONENT_EXT}$`).test(f)
  );
  const styles: [number, string][] = [
    [
      folderIndex.length,
      `one PascalCase folder per component with an \`index\` entry (${sample(folderIndex)})`,
    ],
    [pascalFiles.length, `PascalCase component files (${sample(pascalFiles)})`],
    [kebabFiles.length, `kebab-case component files (${sample(kebabFiles)})`],
  ];
  const best = styles.filter(([n]) => n > 0).sort((a, b) => b[0] - a[0])[0];
  if (best) out.push(`Components: ${best[1]}.`);

  const pageDirs = files.filter((f) =>
    new RegExp(`(^|/)pages/[a-z][a-z0-9-]*/index\\.${COMPONENT_EXT}$`).test(f)
  );
  const pageFiles = files.filter((f) =>
    new RegExp(`(^|/)pages/.+\\.${COMPONENT_EXT}$`).test(f) && !/\/api\//.test(f)
  );
  if (pageDirs.length) {
    out.push(`Pages: lower-case route folders with an \`index\` file (${sample(pageDirs)}).`);
  } else if (pageFiles.length) {
    out.push(`Pages: one file per route under \`pages/\` (${sample(pageFiles)}).`);
  }
  const camelHooks = files.filter((f) => /(^|\/)use[A-Z][A-Za-z0-9]*\.(ts|tsx|js|jsx)$/.test(f));
  const kebabHooks = files.filter((f) => /(^|\/)use-[a-z0-9-]+\.(ts|tsx|js|jsx)$/.test(f));
  if (camelHooks.length >= kebabHooks.length && camelHooks.length) {
    out.push(`Hook files: \`useCamelCase\` names (${sample(camelHooks)}).`);
  } else if (kebabHooks.length) {
    out.push(`Hook files: \`use-kebab-case\` names (${sample(kebabHooks)}).`);
  }
  const testDirs = files.filter((f) => /(^|\/)__tests__\//.test(f));
  const colocated = files.filter((f) =>
    /\.(test|spec)\.[jt]sx?$/.test(f) && !/__tests__\//.test(f)
  );
  const pyTests = files.filter((f) => /(^|\/)tests?\/test_[^/]+\.py$/.test(f));
  if (testDirs.length >= colocated.length && testDirs.length) {
    out.push(`Tests: \`__tests__/\` folders next to the code (${sample(testDirs)}).`);
  } else if (colocated.length) {
    out.push(`Tests: \`*.test.*\` files next to the code (${sample(colocated)}).`);
  }
  if (pyTests.length) out.push(`Tests: \`tests/test_*.py\` modules (${sample(pyTests)}).`);
  const pyModules = files.filter((f) => /\.py$/.test(f) && !/__init__\.py$/.test(f));
  if (pyModules.length && pyModules.every((f) => /(^|\/)[a-z0-9_]+\.py$/.test(f))) {
    out.push(`Python modules: snake_case file names (${sample(pyModules)}).`);
  }
  return out;
}

function directory(facts: ProjectFacts, aliasUsers: string[]): string[] {
  const out: string[] = [];
  if (facts.monorepo?.packages.length) {
    out.push(`Workspace packages: ${facts.monorepo.packages.map((p) => `\`${p}/\``).join(", ")}.`);
  }
  const bases = new Set([
    "",
    "src",
    ...(facts.monorepo?.packages ?? []).flatMap((p) => [p, `${p}/src`]),
  ]);
  for (const dir of facts.walk.dirs) {
    const slash = dir.lastIndexOf("/");
    const parent = slash === -1 ? "" : dir.slice(0, slash);
    const name = dir.slice(slash + 1);
    const role = FOLDER_ROLES[name];
    if (!bases.has(parent) || !role) continue;
    const count = facts.walk.files.filter((f) => f.startsWith(`${dir}/`)).length;
    if (count) out.push(`\`${dir}/\`: ${role} (${plural(count, "file")}).`);
  }
  if (aliasUsers.length) {
    out.push(`Imports use the \`@/\` alias for the source root (${sample(aliasUsers)}).`);
  }
  return out.slice(0, 16);
}

const HTTP_CLIENTS: [string, string][] = [
  ["umi-request", "umi-request"],
  ["axios", "axios"],
  ["ky", "ky"],
  ["swr", "SWR"],
  ["@tanstack/react-query", "TanStack Query"],
  ["@apollo/client", "Apollo Client"],
];

/** Where API calls live and which client they use. */
function serviceLayerOf(sources: SourceText[], files: string[]): string[] {
  const serviceLayer: string[] = [];
  const serviceFiles = files.filter((f) =>
    /(^|\/)(services?|apis?|requests?)\/[^/]+\.[jt]sx?$/.test(f) && !/(^|\/)pages\/api\//.test(f)
  );
  if (serviceFiles.length) {
    const names = sources.filter((s) => serviceFiles.includes(s.path)).flatMap((s) =>
      [...s.text.matchAll(/export\s+(?:async\s+)?(?:function\s+|const\s+)([A-Za-z_]\w*)/g)]
        .map((m) => `\`${m[1]}\` (${s.path})`)
    );
    serviceLayer.push(
      `API calls live in service modules (${
        sample(serviceFiles, 3)
      }), one exported function per endpoint${
        names.length ? `: ${names.slice(0, 5).join(", ")}` : ""
      }.`,
    );
  }
  const wrapper = files.find((f) =>
    /(^|\/)(utils|lib)\/(request|http|api|fetcher)\.[jt]s$/.test(f)
  );
  if (wrapper) serviceLayer.push(`Requests go through the shared wrapper \`${wrapper}\`.`);
  for (const [module, label] of HTTP_CLIENTS) {
    const users = filesThat(sources, (t) => importsModule(t, module));
    if (users.length) serviceLayer.push(`HTTP client: ${label} (${sample(users)}).`);
  }
  const apiRoutes = files.filter((f) => /^(src\/)?pages\/api\/.+\.[jt]s$/.test(f));
  if (apiRoutes.length) {
    serviceLayer.push(`Server endpoints are Next.js API routes (${sample(apiRoutes)}).`);
  }
  const routers = files.filter((f) => /(^|\/)routers?\/[^/]+\.py$/.test(f) && !/__init__/.test(f));
  if (routers.length) {
    serviceLayer.push(`HTTP routes are grouped in router modules (${sample(routers)}).`);
  }

  return serviceLayer;
}

/** Custom hooks, and whether components are classes or use hooks. */
function hooksOf(sources: SourceText[]): string[] {
  const hooks: string[] = [];
  const custom = sources.flatMap((s) =>
    [...s.text.matchAll(/export\s+(?:default\s+)?(?:function\s+|const\s+)(use[A-Z]\w*)/g)].map((
      m,
    ) => `\`${m[1]}\` (${s.path})`)
  );
  if (custom.length) hooks.push(`Custom hooks: ${custom.slice(0, 6).join(", ")}.`);
  const classFiles = filesThat(sources, (t) => CLASS_COMPONENT.test(t));
  const hookFiles = filesThat(sources, (t) => /\buse[A-Z]\w*\s*[(<]/.test(t));
  if (classFiles.length || hookFiles.length) {
    hooks.push(
      `Component style: ${plural(classFiles.length, "file")} with class components, ${
        plural(hookFiles.length, "file")
      } using React hooks${
        classFiles.length ? ` (class components in ${sample(classFiles)})` : ""
      }.`,
    );
  }
  for (const [module, label] of [["ahooks", "ahooks"], ["react-use", "react-use"]] as const) {
    const users = filesThat(sources, (t) => importsModule(t, module));
    if (users.length) hooks.push(`Hook library: ${label} (${sample(users)}).`);
  }

  return hooks;
}

/** Where shared state lives. */
function stateOf(sources: SourceText[]): string[] {
  const state: string[] = [];
  const namespaces = unique(
    sources.flatMap((s) =>
      /(^|\/)models\//.test(s.path)
        ? [...s.text.matchAll(/namespace:\s*['"]([\w-]+)['"]/g)].map((m) =>
          `\`${m[1]}\` (${s.path})`
        )
        : []
    ),
  );
  if (namespaces.length) {
    state.push(`dva models by namespace: ${namespaces.slice(0, 6).join(", ")}.`);
  }
  const connected = filesThat(
    sources,
    (t) => /\bconnect\s*\(/.test(t) && /from\s+['"](umi|dva|react-redux)['"]/.test(t),
  );
  if (connected.length) {
    state.push(`Components reach the store through \`connect\` (${sample(connected)}).`);
  }
  const slices = sources.flatMap((s) =>
    [...s.text.matchAll(/createSlice\(\s*\{\s*name:\s*['"]([\w-]+)['"]/g)].map((m) =>
      `\`${m[1]}\` (${s.path})`
    )
  );
  if (slices.length) state.push(`Redux Toolkit slices: ${slices.slice(0, 6).join(", ")}.`);
  const zustand = filesThat(sources, (t) => importsModule(t, "zustand"));
  if (zustand.length) state.push(`Zustand stores (${sample(zustand)}).`);

  return state;
}

/** How styles are written and where they live. */
function stylingOf(sources: SourceText[], files: string[]): string[] {
  const styling: string[] = [];
  const lessNext = files.filter((f) => /\/index\.less$/.test(f));
  if (lessNext.length) {
    styling.push(
      `Each component or page keeps an \`index.less\` next to it (${sample(lessNext)}).`,
    );
  }
  const modules = files.filter((f) => /\.module\.(css|less|s[ac]ss)$/.test(f));
  if (modules.length) styling.push(`CSS Modules files (${sample(modules)}).`);
  const globals = files.filter((f) =>
    /(^|\/)(global|globals|index)\.(css|less|s[ac]ss)$/.test(f) && !/\/index\.less$/.test(f)
  );
  if (globals.length) styling.push(`Global styles in ${sample(globals)}.`);
  const tailwind = filesThat(
    sources,
    (t) => /className=["'`][^"'`]*\b(flex|grid|p[xy]?-\d|m[xy]?-\d|text-(xs|sm|lg|xl))\b/.test(t),
  );
  if (tailwind.length) styling.push(`Utility classes in JSX (${sample(tailwind)}).`);

  return styling;
}

export async function extractConventions(facts: ProjectFacts): Promise<Conventions> {
  const { sources } = await sampleSources(facts);
  const files = facts.walk.files;
  const aliasUsers = filesThat(sources, (t) => /from\s+['"]@\//.test(t));
  const mark = (list: string[], what: string) => list.length ? list : [`${TO_COMPLETE}: ${what}`];
  return {
    naming: mark(naming(files), "file and symbol naming the code follows."),
    directory: mark(directory(facts, aliasUsers), "which folder holds what."),
    serviceLayer: mark(
      serviceLayerOf(sources, files),
      "where API calls live and which client they use.",
    ),
    hooks: mark(hooksOf(sources), "custom hooks and how components use them."),
    state: mark(stateOf(sources), "where shared state lives, if anywhere."),
    styling: mark(stylingOf(sources, files), "how styles are written and where they live."),
  };
}
