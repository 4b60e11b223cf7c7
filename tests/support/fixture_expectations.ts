/** What the scan must report for each fixture project (shared by unit and CLI tests). */
import type { ScanResult } from "../../lib/scan/result.ts";
import type { FixtureName } from "./fixtures.ts";

export type Expected = Pick<ScanResult, "archetype" | "frontendOnly" | "stack">;

export const EXPECTED: Record<FixtureName, Expected> = {
  "greenfield-react-vite": {
    archetype: "greenfield",
    frontendOnly: true,
    stack: {
      language: "TypeScript",
      framework: "React 18",
      componentLibrary: null,
      css: "Tailwind CSS",
      buildTool: "Vite 5",
      stateManagement: "Zustand",
      routing: "React Router 6",
      testRunner: "Vitest",
      backend: null,
    },
  },
  "legacy-antd-umi": {
    archetype: "legacy-frontend",
    frontendOnly: true,
    stack: {
      language: "TypeScript",
      framework: "React 16",
      componentLibrary: "antd 4 + Ant Design Pro components",
      css: "Less",
      buildTool: "Umi 3",
      stateManagement: "dva",
      routing: "Umi config routes",
      testRunner: "Jest",
      backend: null,
    },
  },
  "next-fullstack": {
    archetype: "greenfield",
    frontendOnly: false,
    stack: {
      language: "TypeScript",
      framework: "React 18",
      componentLibrary: null,
      css: "CSS Modules",
      buildTool: "Next.js 14",
      stateManagement: "SWR (server state)",
      routing: "Next.js file-system routing (pages/)",
      testRunner: "Jest",
      backend: "Next.js API routes + Prisma",
    },
  },
  "pnpm-monorepo": {
    archetype: "frontend-monorepo",
    frontendOnly: true,
    stack: {
      language: "TypeScript",
      framework: "React 18",
      componentLibrary: "MUI 6",
      css: "Emotion",
      buildTool: "Vite 5",
      stateManagement: "Redux Toolkit",
      routing: "React Router 6",
      testRunner: "Vitest",
      backend: null,
    },
  },
  "python-service": {
    archetype: "greenfield",
    frontendOnly: false,
    stack: {
      language: "Python 3.11",
      framework: null,
      componentLibrary: null,
      css: null,
      buildTool: "Poetry",
      stateManagement: null,
      routing: null,
      testRunner: "pytest",
      backend: "FastAPI",
    },
  },
};
