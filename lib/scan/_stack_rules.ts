/**
 * The JS/TS stack vocabulary: for each stack field, the candidates in
 * priority order and how each is recognised (dependencies, files). Data only;
 * _stack_js.ts evaluates it.
 */
import type { DepHit } from "./facts.ts";
import { majorOf } from "./facts.ts";

export interface Candidate {
  label: string | ((hit: DepHit | undefined) => string);
  /** Any of these dependency names. */
  deps?: string[];
  /** Any dependency starting with this (`@radix-ui/`). */
  prefix?: string;
  /** Any walked file matching this (project-relative path). */
  files?: RegExp;
  /** Needs both a dependency hit and a file hit, not either. */
  needsBoth?: boolean;
  /** Not reported when a candidate of this field already matched with one of these labels. */
  unlessLabel?: string[];
  /** Not reported when one of these dependencies is declared. */
  unlessDeps?: string[];
}

export interface FieldRules {
  /** How many matches the field reports (joined with " + "). */
  max: number;
  candidates: Candidate[];
}

const versioned = (name: string) => (hit: DepHit | undefined) => {
  const major = hit ? majorOf(hit.range) : undefined;
  return major === undefined ? name : `${name} ${major}`;
};

const META_BUILD = [
  "Umi",
  "Next.js",
  "Nuxt",
  "Remix",
  "Astro",
  "Gatsby",
  "SvelteKit",
  "Angular CLI",
  "Create React App",
  "Vue CLI",
];

export const JS_RULES: Record<string, FieldRules> = {
  framework: {
    max: 2,
    candidates: [
      { label: versioned("React"), deps: ["react"] },
      { label: versioned("Preact"), deps: ["preact"] },
      { label: versioned("Vue"), deps: ["vue"] },
      { label: versioned("Angular"), deps: ["@angular/core"] },
      { label: "AngularJS 1.x", deps: ["angular"] },
      { label: versioned("Svelte"), deps: ["svelte"] },
      { label: "SolidJS", deps: ["solid-js"] },
      { label: "Lit", deps: ["lit"] },
      { label: "Ember", deps: ["ember-source"] },
    ],
  },
  componentLibrary: {
    max: 2,
    candidates: [
      { label: versioned("antd"), deps: ["antd"] },
      {
        label: "Ant Design Pro components",
        deps: ["@ant-design/pro-components", "@ant-design/pro-layout", "@ant-design/pro-table"],
      },
      { label: versioned("MUI"), deps: ["@mui/material"] },
      { label: "Material-UI 4", deps: ["@material-ui/core"] },
      { label: "Element UI", deps: ["element-ui"] },
      { label: "Element Plus", deps: ["element-plus"] },
      { label: versioned("Ant Design Vue"), deps: ["ant-design-vue"] },
      { label: "Arco Design", deps: ["@arco-design/web-react", "@arco-design/web-vue"] },
      { label: "Semi Design", deps: ["@douyinfe/semi-ui"] },
      { label: "TDesign", deps: ["tdesign-react", "tdesign-vue-next", "tdesign-vue"] },
      { label: "Vant", deps: ["vant"] },
      { label: "Chakra UI", deps: ["@chakra-ui/react"] },
      { label: "Mantine", deps: ["@mantine/core"] },
      { label: "Angular Material", deps: ["@angular/material"] },
      { label: "Vuetify", deps: ["vuetify"] },
      { label: "Naive UI", deps: ["naive-ui"] },
      { label: "Quasar", deps: ["quasar"] },
      { label: "PrimeReact", deps: ["primereact"] },
      { label: "PrimeVue", deps: ["primevue"] },
      { label: "NextUI", deps: ["@nextui-org/react"] },
      { label: "Fluent UI", deps: ["@fluentui/react", "@fluentui/react-components"] },
      { label: "Blueprint", deps: ["@blueprintjs/core"] },
      { label: "Semantic UI React", deps: ["semantic-ui-react"] },
      { label: "React Bootstrap", deps: ["react-bootstrap"] },
      { label: "Bootstrap", deps: ["bootstrap"], unlessLabel: ["React Bootstrap"] },
      { label: "shadcn/ui", prefix: "@radix-ui/", files: /^components\.json$/, needsBoth: true },
      { label: "Radix UI", prefix: "@radix-ui/", unlessLabel: ["shadcn/ui"] },
      { label: "Headless UI", deps: ["@headlessui/react", "@headlessui/vue"] },
      { label: "daisyUI", deps: ["daisyui"] },
    ],
  },
  css: {
    max: 3,
    candidates: [
      {
        label: "Tailwind CSS",
        deps: ["tailwindcss"],
        files: /(^|\/)tailwind\.config\.[cm]?[jt]s$/,
      },
      { label: "UnoCSS", deps: ["unocss"] },
      { label: "Windi CSS", deps: ["windicss"] },
      { label: "Less", deps: ["less"], files: /\.less$/ },
      { label: "Sass", deps: ["sass", "node-sass", "sass-embedded"], files: /\.s[ac]ss$/ },
      { label: "Stylus", deps: ["stylus"], files: /\.styl$/ },
      { label: "styled-components", deps: ["styled-components"] },
      { label: "Emotion", deps: ["@emotion/react", "@emotion/styled", "@emotion/css"] },
      { label: "vanilla-extract", deps: ["@vanilla-extract/css"] },
      { label: "Stitches", deps: ["@stitches/react"] },
      { label: "Linaria", deps: ["@linaria/core", "linaria"] },
      { label: "CSS Modules", files: /\.module\.(css|less|s[ac]ss)$/ },
    ],
  },
  buildTool: {
    max: 2,
    candidates: [
      {
        label: versioned("Umi"),
        deps: ["umi", "@umijs/max"],
        files: /^(\.umirc\.[jt]s|config\/config\.[jt]s)$/,
      },
      { label: versioned("Next.js"), deps: ["next"] },
      { label: versioned("Nuxt"), deps: ["nuxt"] },
      { label: "Remix", deps: ["@remix-run/dev"] },
      { label: "Astro", deps: ["astro"] },
      { label: "Gatsby", deps: ["gatsby"] },
      { label: "SvelteKit", deps: ["@sveltejs/kit"] },
      { label: "Angular CLI", deps: ["@angular/cli", "@angular-devkit/build-angular"] },
      { label: "Create React App", deps: ["react-scripts"] },
      { label: "Vue CLI", deps: ["@vue/cli-service"] },
      {
        label: versioned("Vite"),
        deps: ["vite"],
        files: /(^|\/)vite\.config\.[cm]?[jt]s$/,
        unlessLabel: META_BUILD,
      },
      { label: "Rsbuild", deps: ["@rsbuild/core"], unlessLabel: META_BUILD },
      { label: "Rspack", deps: ["@rspack/core", "@rspack/cli"], unlessLabel: META_BUILD },
      {
        label: versioned("webpack"),
        deps: ["webpack"],
        files: /(^|\/)webpack\.config\.[cm]?[jt]s$/,
        unlessLabel: META_BUILD,
      },
      { label: "Parcel", deps: ["parcel", "parcel-bundler"], unlessLabel: META_BUILD },
      { label: "Rollup", deps: ["rollup"], unlessLabel: META_BUILD },
      { label: "esbuild", deps: ["esbuild"], unlessLabel: META_BUILD },
      { label: "tsup", deps: ["tsup"], unlessLabel: META_BUILD },
    ],
  },
  stateManagement: {
    max: 2,
    candidates: [
      { label: "dva", deps: ["dva", "dva-core"] },
      { label: "Redux Toolkit", deps: ["@reduxjs/toolkit"] },
      { label: "Redux", deps: ["redux", "react-redux"], unlessDeps: ["@reduxjs/toolkit"] },
      { label: "MobX", deps: ["mobx"] },
      { label: "Zustand", deps: ["zustand"] },
      { label: "Recoil", deps: ["recoil"] },
      { label: "Jotai", deps: ["jotai"] },
      { label: "Valtio", deps: ["valtio"] },
      { label: "Pinia", deps: ["pinia"] },
      { label: "Vuex", deps: ["vuex"] },
      { label: "NgRx", deps: ["@ngrx/store"] },
      { label: "XState", deps: ["xstate"] },
      { label: "TanStack Query (server state)", deps: ["@tanstack/react-query", "react-query"] },
      { label: "SWR (server state)", deps: ["swr"] },
    ],
  },
  routing: {
    max: 1,
    candidates: [
      { label: "Nuxt file-system routing", deps: ["nuxt"] },
      { label: "SvelteKit routes", deps: ["@sveltejs/kit"] },
      { label: "Remix routes", deps: ["@remix-run/react"] },
      { label: "Gatsby pages", deps: ["gatsby"] },
      { label: versioned("React Router"), deps: ["react-router-dom", "react-router"] },
      { label: "TanStack Router", deps: ["@tanstack/react-router"] },
      { label: versioned("Vue Router"), deps: ["vue-router"] },
      { label: "Angular Router", deps: ["@angular/router"] },
      { label: "wouter", deps: ["wouter"] },
      { label: "Reach Router", deps: ["@reach/router"] },
    ],
  },
  testRunner: {
    max: 3,
    candidates: [
      { label: "Vitest", deps: ["vitest"] },
      {
        label: "Jest",
        deps: ["jest", "ts-jest", "babel-jest", "umi-test", "@umijs/test", "react-scripts"],
        files: /(^|\/)jest\.config\.[cm]?[jt]s$/,
      },
      { label: "Mocha", deps: ["mocha"] },
      { label: "Jasmine", deps: ["jasmine", "jasmine-core"] },
      { label: "Karma", deps: ["karma"] },
      { label: "AVA", deps: ["ava"] },
      { label: "Playwright", deps: ["@playwright/test"] },
      { label: "Cypress", deps: ["cypress"] },
    ],
  },
  backend: {
    max: 2,
    candidates: [
      { label: "NestJS", deps: ["@nestjs/core"] },
      { label: "Express", deps: ["express"] },
      { label: "Koa", deps: ["koa"] },
      { label: "Fastify", deps: ["fastify"] },
      { label: "hapi", deps: ["@hapi/hapi"] },
      { label: "Egg.js", deps: ["egg"] },
      { label: "Midway", deps: ["@midwayjs/core"] },
      { label: "Hono", deps: ["hono"] },
      {
        label: "Next.js API routes",
        deps: ["next"],
        files: /^(src\/)?(pages\/api\/.+\.[jt]sx?|app\/(.+\/)?route\.[jt]s)$/,
        needsBoth: true,
      },
      { label: "tRPC", deps: ["@trpc/server"] },
      { label: "Apollo Server", deps: ["apollo-server", "@apollo/server"] },
      { label: "Prisma", deps: ["prisma", "@prisma/client"] },
      { label: "TypeORM", deps: ["typeorm"] },
      { label: "Sequelize", deps: ["sequelize"] },
      { label: "Mongoose", deps: ["mongoose"] },
      { label: "Drizzle", deps: ["drizzle-orm"] },
    ],
  },
};
