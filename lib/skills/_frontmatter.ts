/**
 * The portable Agent Skills rules for a SKILL.md: YAML front matter with only
 * the keys every agent understands, a `name` equal to the folder name, a
 * bounded description, and a body short enough to load whole. `skills
 * install` and `skills verify` refuse a tree that breaks them; the skills'
 * contract tests use the same checks.
 */
import { parse as rawParseYaml } from "../infra/vendor/yaml.js";

const parseYaml = rawParseYaml as (text: string) => unknown;

/** 1-64 lowercase letters and digits, single hyphens between them. */
export const SKILL_NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const MAX_NAME = 64;
export const MAX_DESCRIPTION = 1024;
export const MAX_COMPATIBILITY = 500;
/** A SKILL.md must stay under this many lines; detail goes to references/. */
export const MAX_SKILL_LINES = 500;

export const ALLOWED_KEYS = [
  "name",
  "description",
  "license",
  "compatibility",
  "metadata",
  "allowed-tools",
] as const;

export interface SkillFrontmatter {
  name: string;
  description: string;
  license?: string;
  compatibility?: string;
  metadata?: Record<string, string>;
  allowedTools?: string;
}

export interface SkillIssue {
  /** The file, relative to the skills tree: `peaks-code/SKILL.md`. */
  path: string;
  field?: string;
  message: string;
}

export interface SplitDocument {
  /** The YAML text between the fences. */
  yaml: string;
  body: string;
  /** 1-based line of the first body line. */
  bodyLine: number;
}

/** Splits `---` fenced front matter from the body; undefined when the file has none. */
export function splitSkillDocument(text: string): SplitDocument | undefined {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (lines[0]?.trimEnd() !== "---") return undefined;
  const end = lines.findIndex((line, i) => i > 0 && line.trimEnd() === "---");
  if (end === -1) return undefined;
  return {
    yaml: lines.slice(1, end).join("\n"),
    body: lines.slice(end + 1).join("\n"),
    bodyLine: end + 2,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    !(value instanceof Date);
}

function lineCount(text: string): number {
  const trimmed = text.endsWith("\n") ? text.slice(0, -1) : text;
  return trimmed === "" ? 0 : trimmed.split(/\r?\n/).length;
}

/**
 * Checks one SKILL.md against the portable rules. `folder` is the name of the
 * directory holding it, which `name` must equal.
 */
export function checkSkillFile(
  folder: string,
  text: string,
  path = `${folder}/SKILL.md`,
): { frontmatter?: SkillFrontmatter; issues: SkillIssue[] } {
  const issues: SkillIssue[] = [];
  const issue = (message: string, field?: string) =>
    issues.push(field ? { path, field, message } : { path, message });

  const lines = lineCount(text);
  if (lines >= MAX_SKILL_LINES) {
    issue(
      `has ${lines} lines; a SKILL.md must stay under ${MAX_SKILL_LINES} (move detail to references/)`,
    );
  }

  const split = splitSkillDocument(text);
  if (!split) {
    issue("does not start with YAML front matter between two `---` lines");
    return { issues };
  }
  let data: unknown;
  try {
    data = parseYaml(split.yaml);
  } catch (error) {
    const first = (error instanceof Error ? error.message : String(error)).split("\n")[0];
    issue(`front matter is not valid YAML: ${first}`);
    return { issues };
  }
  if (!isRecord(data)) {
    issue("front matter must be a mapping of keys to values");
    return { issues };
  }

  checkFields(data, folder, issue);
  if (issues.length) return { issues };
  const { compatibility, metadata } = data;
  return {
    frontmatter: {
      name: data.name as string,
      description: data.description as string,
      ...(typeof data.license === "string" ? { license: data.license } : {}),
      ...(typeof compatibility === "string" ? { compatibility } : {}),
      ...(isRecord(metadata) ? { metadata: metadata as Record<string, string> } : {}),
      ...(typeof data["allowed-tools"] === "string" ? { allowedTools: data["allowed-tools"] } : {}),
    },
    issues,
  };
}

type Report = (message: string, field?: string) => void;

/** The front matter's keys and values against the portable rules. */
function checkFields(data: Record<string, unknown>, folder: string, issue: Report): void {
  for (const key of Object.keys(data)) {
    if (!(ALLOWED_KEYS as readonly string[]).includes(key)) {
      issue(`unknown front matter key "${key}"; allowed: ${ALLOWED_KEYS.join(", ")}`, key);
    }
  }
  checkName(data.name, folder, issue);
  const description = data.description;
  if (typeof description !== "string" || description.trim() === "") {
    issue("`description` is required and must be a non-empty string", "description");
  } else if (description.length > MAX_DESCRIPTION) {
    issue(
      `\`description\` has ${description.length} characters; the limit is ${MAX_DESCRIPTION}`,
      "description",
    );
  }
  if ("license" in data && (typeof data.license !== "string" || data.license.trim() === "")) {
    issue("`license` must be a non-empty string", "license");
  }
  const compatibility = data.compatibility;
  if ("compatibility" in data) {
    if (typeof compatibility !== "string" || compatibility.trim() === "") {
      issue("`compatibility` must be a non-empty string", "compatibility");
    } else if (compatibility.length > MAX_COMPATIBILITY) {
      issue(`\`compatibility\` is longer than ${MAX_COMPATIBILITY} characters`, "compatibility");
    }
  }
  const metadata = data.metadata;
  if ("metadata" in data) {
    if (!isRecord(metadata) || Object.values(metadata).some((v) => typeof v !== "string")) {
      issue('`metadata` must map keys to string values (quote numbers: "1.0")', "metadata");
    }
  }
  if ("allowed-tools" in data && typeof data["allowed-tools"] !== "string") {
    issue("`allowed-tools` must be a space-separated string of tool names", "allowed-tools");
  }
}

function checkName(name: unknown, folder: string, issue: Report): void {
  if (typeof name !== "string" || name === "") {
    issue("`name` is required and must be a string", "name");
    return;
  }
  if (name.length > MAX_NAME) issue(`\`name\` is longer than ${MAX_NAME} characters`, "name");
  if (!SKILL_NAME_PATTERN.test(name)) {
    issue(
      "`name` must be lowercase letters, digits and single hyphens, not starting or ending with a hyphen",
      "name",
    );
  }
  if (name !== folder) {
    issue(`\`name\` is "${name}" but the folder is "${folder}"; they must match`, "name");
  }
}
