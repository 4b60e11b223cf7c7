import { assert, assertEquals, assertMatch } from "@std/assert";
import { checkSkillFile, splitSkillDocument } from "../../lib/skills/_frontmatter.ts";

function fields(issues: { field?: string }[]): (string | undefined)[] {
  return issues.map((i) => i.field);
}

function doc(yaml: string, body = "# Body\n"): string {
  return `---\n${yaml}\n---\n${body}`;
}

Deno.test("a minimal SKILL.md with name and description passes", () => {
  const result = checkSkillFile(
    "peaks-code",
    doc("name: peaks-code\ndescription: Runs the workflow."),
  );
  assertEquals(result.issues, []);
  assertEquals(result.frontmatter, { name: "peaks-code", description: "Runs the workflow." });
});

Deno.test("every optional portable key is accepted and returned", () => {
  const result = checkSkillFile(
    "peaks-qa",
    doc([
      "name: peaks-qa",
      "description: >-",
      "  Tests things: plans, runs",
      "  and reports.",
      "license: Apache-2.0",
      "compatibility: Needs git and the peaks CLI",
      "metadata:",
      '  version: "1.0"',
      "  author: peaks",
      "allowed-tools: Bash Read",
    ].join("\n")),
  );
  assertEquals(result.issues, []);
  assertEquals(result.frontmatter?.description, "Tests things: plans, runs and reports.");
  assertEquals(result.frontmatter?.metadata, { version: "1.0", author: "peaks" });
  assertEquals(result.frontmatter?.allowedTools, "Bash Read");
});

Deno.test("name must equal the folder and follow the portable pattern", () => {
  assertEquals(fields(checkSkillFile("peaks-rd", doc("name: peaks-qa\ndescription: x")).issues), [
    "name",
  ]);
  for (const bad of ["Peaks", "peaks--rd", "-peaks", "peaks-", "peaks_rd", "a".repeat(65)]) {
    const result = checkSkillFile(bad, doc(`name: ${bad}\ndescription: x`));
    assert(result.issues.some((i) => i.field === "name"), `${bad} should be refused`);
  }
  assertEquals(
    checkSkillFile("a".repeat(64), doc(`name: ${"a".repeat(64)}\ndescription: x`)).issues,
    [],
  );
  assertEquals(fields(checkSkillFile("x", doc("description: x")).issues), ["name"]);
});

Deno.test("description is required, non-empty and at most 1024 characters", () => {
  assertEquals(fields(checkSkillFile("x", doc("name: x")).issues), ["description"]);
  assertEquals(fields(checkSkillFile("x", doc('name: x\ndescription: "  "')).issues), [
    "description",
  ]);
  assertEquals(checkSkillFile("x", doc(`name: x\ndescription: ${"d".repeat(1024)}`)).issues, []);
  const long = checkSkillFile("x", doc(`name: x\ndescription: ${"d".repeat(1025)}`));
  assertEquals(fields(long.issues), ["description"]);
  assertMatch(long.issues[0].message, /1025 characters; the limit is 1024/);
});

Deno.test("keys outside the portable set are refused by name", () => {
  const result = checkSkillFile("x", doc("name: x\ndescription: y\nversion: 2\nmodel: opus"));
  assertEquals(fields(result.issues), ["version", "model"]);
  assertMatch(
    result.issues[0].message,
    /allowed: name, description, license, compatibility, metadata/,
  );
});

Deno.test("optional keys have their own shapes", () => {
  const base = "name: x\ndescription: y\n";
  assertEquals(fields(checkSkillFile("x", doc(`${base}metadata:\n  version: 1`)).issues), [
    "metadata",
  ]);
  assertEquals(fields(checkSkillFile("x", doc(`${base}metadata: [a]`)).issues), ["metadata"]);
  assertEquals(fields(checkSkillFile("x", doc(`${base}license: ""`)).issues), ["license"]);
  assertEquals(
    fields(checkSkillFile("x", doc(`${base}compatibility: ${"c".repeat(501)}`)).issues),
    ["compatibility"],
  );
  assertEquals(fields(checkSkillFile("x", doc(`${base}allowed-tools: [Bash]`)).issues), [
    "allowed-tools",
  ]);
});

Deno.test("a file without front matter, or with broken YAML, is refused with a reason", () => {
  assertMatch(
    checkSkillFile("x", "# no front matter\n").issues[0].message,
    /does not start with YAML/,
  );
  assertMatch(checkSkillFile("x", "---\nname: x\n").issues[0].message, /does not start with YAML/);
  assertMatch(
    checkSkillFile("x", doc("name: [x\ndescription: y")).issues[0].message,
    /not valid YAML/,
  );
  assertMatch(checkSkillFile("x", doc("- a\n- b")).issues[0].message, /must be a mapping/);
});

Deno.test("SKILL.md must stay under 500 lines", () => {
  const head = "name: x\ndescription: y";
  const ok = doc(head, "line\n".repeat(495));
  assertEquals(checkSkillFile("x", ok).issues, []);
  const tooLong = doc(head, "line\n".repeat(496));
  assertMatch(checkSkillFile("x", tooLong).issues[0].message, /has 500 lines/);
});

Deno.test("CRLF line ends and a byte order mark are read like plain files", () => {
  const text = "\uFEFF---\r\nname: x\r\ndescription: y\r\n---\r\nbody\r\n";
  assertEquals(checkSkillFile("x", text).issues, []);
  assertEquals(splitSkillDocument(text)?.bodyLine, 5);
});

Deno.test("issues name the file they belong to", () => {
  const result = checkSkillFile("x", doc("name: y\ndescription: z"), "x/SKILL.md");
  assertEquals(result.issues[0].path, "x/SKILL.md");
});
