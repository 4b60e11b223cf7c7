import { assert, assertEquals, assertMatch } from "@std/assert";
import {
  parseRequest,
  renderRequest,
  REQUEST_ROLES,
  type RequestMeta,
} from "../../lib/request/file.ts";
import { lintText, placeholdersOf } from "../../lib/request/linter.ts";
import { renderTemplate } from "../../lib/request/templates.ts";

Deno.test("every role's template has placeholders and lints with exactly one error per placeholder", () => {
  for (const role of REQUEST_ROLES) {
    const body = renderTemplate(role, { rid: "r1", type: "bugfix" });
    const tokens = body.match(/<[A-Za-z][^<>\n]*>/g) ?? [];
    assert(tokens.length >= 3, `${role} has placeholders`);
    const { errors } = lintText(body);
    assertEquals(errors.length, tokens.length, role);
    assert(errors.every((e) => e.rule === "placeholder"), role);
    const filled = body.replace(/<[A-Za-z][^<>\n]*>/g, "written");
    assertEquals(lintText(filled), { errors: [], warnings: [] }, `${role} filled`);
  }
});

Deno.test("the PRD template carries the headings its gate checks", () => {
  const lines = renderTemplate("prd", { rid: "r1", type: "feature" }).split("\n");
  assert(lines.includes("## Goals"));
  assert(lines.includes("## Acceptance criteria"));
  assertMatch(lines[0], /^# PRD r1: <title>$/);
});

Deno.test("request files round-trip, optional front matter keys included", async () => {
  const meta: RequestMeta = {
    rid: "r1",
    role: "qa",
    type: "feature",
    state: "blocked",
    verdict: "return-to-rd",
    blockedFrom: "verdict-issued",
    blockedReason: "env: staging is down",
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-02T00:00:00.000Z",
  };
  const body = "# QA\n\ntext\n";
  const text = renderRequest(meta, body);
  const doc = await parseRequest("x.md", text);
  assertEquals(doc.meta, meta);
  assertEquals(doc.body, body);
  assertEquals(text.split("\n")[doc.bodyLine - 1], "# QA");
  const plain = renderRequest({
    ...meta,
    verdict: undefined,
    blockedFrom: undefined,
    blockedReason: undefined,
    state: "draft",
  }, body);
  assert(!plain.includes("verdict:") && !plain.includes("blockedFrom:"));
});

Deno.test("placeholder line numbers count the front matter", () => {
  const meta: RequestMeta = {
    rid: "r1",
    role: "prd",
    type: "feature",
    state: "draft",
    createdAt: "t",
    updatedAt: "t",
  };
  const text = renderRequest(meta, renderTemplate("prd", { rid: "r1", type: "feature" }));
  const lines = text.split("\n");
  for (const { line, token } of placeholdersOf(text)) assert(lines[line - 1].includes(token));
});
