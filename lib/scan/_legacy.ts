/**
 * Legacy constraints: things already in the code that new work must respect
 * (class components, moment, Enzyme, jQuery, old majors...). Each comes with
 * the evidence that found it and the rule the standards turn it into.
 */
import type { LegacyConstraint } from "./result.ts";
import { depEvidence, type DepHit, findDep, majorOf, type ProjectFacts } from "./facts.ts";
import { CLASS_COMPONENT, filesThat, importsModule, sampleSources } from "./_sources.ts";

export interface LegacyFinding extends LegacyConstraint {
  /** Strong markers make a project legacy on their own; weak ones need company. */
  strength: "strong" | "weak";
}

function listFiles(files: string[], max = 3): string {
  const shown = files.slice(0, max).join(", ");
  return files.length > max ? `${shown} and ${files.length - max} more` : shown;
}

interface DepRule {
  names: string[];
  /** The constraint for the first dependency found, or undefined when its version is fine. */
  build: (hit: DepHit, facts: ProjectFacts) => Omit<LegacyFinding, "evidence"> | undefined;
}

function depConstraint(
  facts: ProjectFacts,
  names: string[],
  build: DepRule["build"],
): LegacyFinding | undefined {
  for (const name of names) {
    const hit = findDep(facts, name);
    if (!hit) continue;
    const made = build(hit, facts);
    if (made) return { ...made, evidence: [depEvidence(hit)] };
  }
  return undefined;
}

/** Dependencies that constrain new work, in the order they are reported. */
const DEP_RULES: DepRule[] = [
  {
    names: ["enzyme", "enzyme-adapter-react-16"],
    build: (hit) => ({
      id: "enzyme",
      strength: "strong",
      summary: `Enzyme component tests (${hit.name}@${hit.range})`,
      rule:
        "Component tests use Enzyme: add cases to those suites with Enzyme; do not rewrite them with Testing Library in the same change.",
    }),
  },
  {
    names: ["jquery"],
    build: (hit) => ({
      id: "jquery",
      strength: "strong",
      summary: `jQuery (${hit.name}@${hit.range})`,
      rule:
        "jQuery code stays jQuery: do not rewrite it with another library inside a touched module.",
    }),
  },
  {
    names: ["react"],
    build: (hit) => {
      const major = majorOf(hit.range);
      if (major === undefined || major >= 17) return undefined;
      return {
        id: "react-legacy",
        strength: "strong",
        summary: `React ${major} (${hit.name}@${hit.range})`,
        rule: `React ${major}: use only APIs that exist in React ${major}${
          major < 16
            ? " (no hooks, no fragments shorthand)"
            : " (no createRoot, useId, useTransition)"
        }; do not upgrade React as part of feature work.`,
      };
    },
  },
  {
    names: ["antd"],
    build: (hit) => {
      const major = majorOf(hit.range);
      if (major === undefined || major >= 5) return undefined;
      return {
        id: "antd-legacy",
        strength: "weak",
        summary: `antd ${major} (${hit.name}@${hit.range})`,
        rule:
          `antd ${major}: write against the antd ${major} API (its Form, Table and DatePicker props); do not upgrade antd or paste antd 5 examples.`,
      };
    },
  },
  {
    names: ["umi"],
    build: (hit) => {
      const major = majorOf(hit.range);
      if (major === undefined || major >= 4) return undefined;
      return {
        id: "umi-legacy",
        strength: "weak",
        summary: `Umi ${major} (${hit.name}@${hit.range})`,
        rule:
          `Umi ${major}: keep to the Umi ${major} config and APIs (.umirc.ts, umi-request, plugins); do not migrate to Umi 4 or @umijs/max in feature work.`,
      };
    },
  },
  {
    names: ["dva", "dva-core", "@umijs/preset-react"],
    build: (hit, facts) => {
      const models = facts.walk.files.some((f) => /^src\/models\//.test(f));
      if (hit.name === "@umijs/preset-react" && !models) return undefined;
      return {
        id: "dva",
        strength: "weak",
        summary: `dva models for shared state (${hit.name}@${hit.range})`,
        rule:
          "Shared state lives in dva models (src/models): add state and effects there and connect components to them; do not introduce another store.",
      };
    },
  },
  {
    names: ["vue"],
    build: (hit) => {
      const major = majorOf(hit.range);
      if (major !== 2) return undefined;
      return {
        id: "vue2",
        strength: "strong",
        summary: `Vue 2 (${hit.name}@${hit.range})`,
        rule:
          "Vue 2: write components that run on Vue 2 (Options API style as used); no Vue 3-only APIs.",
      };
    },
  },
  {
    names: ["angular"],
    build: (hit) => ({
      id: "angularjs",
      strength: "strong",
      summary: `AngularJS 1.x (${hit.name}@${hit.range})`,
      rule:
        "AngularJS 1.x: extend the existing controllers, services and directives in their style; no Angular 2+ code in touched modules.",
    }),
  },
  {
    names: ["webpack"],
    build: (hit) => {
      const major = majorOf(hit.range);
      if (major === undefined || major >= 5) return undefined;
      return {
        id: "webpack-legacy",
        strength: "strong",
        summary: `webpack ${major} (${hit.name}@${hit.range})`,
        rule: `webpack ${major}: do not add loaders or plugins that need a newer webpack.`,
      };
    },
  },
  {
    names: ["node-sass"],
    build: (hit) => ({
      id: "node-sass",
      strength: "strong",
      summary: `node-sass (${hit.name}@${hit.range})`,
      rule:
        "Styles compile with node-sass: avoid Sass features only Dart Sass has (@use, math.div).",
    }),
  },
  {
    names: ["tslint"],
    build: (hit) => ({
      id: "tslint",
      strength: "strong",
      summary: `TSLint (${hit.name}@${hit.range})`,
      rule: "Lint with TSLint as configured; do not switch linters as part of feature work.",
    }),
  },
  {
    names: ["@material-ui/core"],
    build: (hit) => ({
      id: "material-ui-v4",
      strength: "strong",
      summary: `Material-UI 4 (${hit.name}@${hit.range})`,
      rule:
        "Material-UI 4: use its API (makeStyles, withStyles, @material-ui/* imports); do not import from @mui/*.",
    }),
  },
  {
    names: ["create-react-class"],
    build: (hit) => ({
      id: "create-react-class",
      strength: "strong",
      summary: `createReactClass components (${hit.name}@${hit.range})`,
      rule: "createReactClass components stay as they are in touched modules.",
    }),
  },
];

export async function detectLegacy(facts: ProjectFacts): Promise<LegacyFinding[]> {
  const found: LegacyFinding[] = [];
  const { sources } = await sampleSources(facts);

  const classFiles = filesThat(sources, (t) => CLASS_COMPONENT.test(t));
  if (classFiles.length) {
    found.push({
      id: "class-components",
      strength: "strong",
      summary: `React class components (${classFiles.length} file${
        classFiles.length === 1 ? "" : "s"
      }: ${listFiles(classFiles)})`,
      rule:
        "Modules built with React class components stay class-based: extend them as class components and do not convert them to function components or hooks unless the PRD authorises modernisation.",
      evidence: classFiles.slice(0, 10),
    });
  }

  const moment = findDep(facts, "moment");
  if (moment) {
    const users = filesThat(sources, (t) => importsModule(t, "moment"));
    found.push({
      id: "moment",
      strength: "weak",
      summary: `moment for dates (${moment.name}@${moment.range}${
        users.length ? `, used in ${users.length} file${users.length === 1 ? "" : "s"}` : ""
      })`,
      rule:
        "Dates go through moment: do not replace moment with dayjs, date-fns or hand-written Date code in modules you touch; new code in those modules uses moment too.",
      evidence: [depEvidence(moment), ...users.slice(0, 5)],
    });
  }

  for (const rule of DEP_RULES) {
    const finding = depConstraint(facts, rule.names, rule.build);
    if (finding) found.push(finding);
  }
  return found;
}
