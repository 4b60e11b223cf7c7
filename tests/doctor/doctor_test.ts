import { assertEquals, assertStringIncludes } from "@std/assert";
import { PeaksError } from "../../lib/infra/errors.ts";
import { projectLayout } from "../../lib/workspace/paths.ts";
import { strayCandidates } from "../../lib/doctor/check_root_files.ts";
import { selfFinding } from "../../lib/doctor/check_runtime.ts";
import {
  type Check,
  type CheckInput,
  MAX_PATHS,
  runCheck,
  somePaths,
} from "../../lib/doctor/model.ts";
import { renderDoctor } from "../../lib/doctor/render.ts";
import { fakeCtx, runInProcess } from "../support/ctx.ts";
import { tempDir } from "../support/temp.ts";

function input(root: string): CheckInput {
  return {
    ctx: fakeCtx({ cwd: root }),
    project: { root, layout: projectLayout(root), source: "flag" },
    now: new Date(),
    workspace: false,
  };
}

Deno.test("a check that throws becomes a finding; the others are not affected", async () => {
  const refusing: Check = {
    name: "refusing",
    run: () => {
      throw new PeaksError("RECORD_UNREADABLE", "The thing at x is unreadable.", {
        nextActions: ["mv x x.corrupt"],
      });
    },
  };
  const crashing: Check = {
    name: "crashing",
    run: () => Promise.reject(new Deno.errors.PermissionDenied("EACCES: /p")),
  };
  const refused = await runCheck(refusing, input("/p"));
  assertEquals(refused.result, { name: "refusing", status: "finding", summary: "could not run" });
  assertEquals(refused.findings.map((f) => [f.id, f.check, f.severity, f.fix]), [
    ["doctor.check-failed", "refusing", "warning", "mv x x.corrupt"],
  ]);
  const crashed = await runCheck(crashing, input("/p"));
  assertEquals(crashed.findings[0].fix, null);
  assertStringIncludes(crashed.findings[0].detail, "EACCES");

  const skipped = await runCheck(
    { name: "quiet", run: () => Promise.resolve({ skipped: "n/a", summary: "", findings: [] }) },
    input("/p"),
  );
  assertEquals(skipped.result, { name: "quiet", status: "skipped", summary: "n/a" });
});

Deno.test("stray candidates: images, snapshots, HAR files, mock servers and runner folders; nothing else", () => {
  const file = (name: string) => ({ name, isFile: true, isDirectory: false });
  const folder = (name: string) => ({ name, isFile: false, isDirectory: true });
  const link = (name: string) => ({ name, isFile: false, isDirectory: false });
  assertEquals(
    strayCandidates([
      file("Screen Shot 1.PNG"),
      file("a.jpeg"),
      file("b.webp"),
      file("Button.test.tsx.snap"),
      file("traffic.har"),
      file("mock-server.js"),
      file("mockServer.ts"),
      file("mock_server.mjs"),
      folder("test-results"),
      folder("playwright-report"),
      folder(".playwright-mcp"),
      folder("__snapshots__"),
      file("README.md"),
      file("package.json"),
      file("server.js"),
      file("mock-server.md"),
      folder("src"),
      folder("screenshot.png"),
      link("link.png"),
    ]),
    [
      ".playwright-mcp",
      "Button.test.tsx.snap",
      "Screen Shot 1.PNG",
      "__snapshots__",
      "a.jpeg",
      "b.webp",
      "mock-server.js",
      "mockServer.ts",
      "mock_server.mjs",
      "playwright-report",
      "test-results",
      "traffic.har",
    ],
  );
});

Deno.test("a compiled binary that is not PATH's peaks cannot start detached supervisors", () => {
  assertEquals(selfFinding(false, ["deno", "run"], "/usr/bin/deno"), undefined);
  assertEquals(selfFinding(true, ["peaks"], "/home/me/.peaks/bin/peaks"), undefined);
  const finding = selfFinding(true, ["/opt/tools/peaks"], "/opt/tools/peaks");
  assertEquals([finding?.id, finding?.severity, finding?.fix], [
    "runtime.self-not-on-path",
    "warning",
    null,
  ]);
  assertStringIncludes(finding!.detail, "/opt/tools/peaks");
});

Deno.test("paths in a finding are capped", () => {
  const many = Array.from({ length: MAX_PATHS + 5 }, (_, i) => `f${i}`);
  assertEquals(somePaths(many).length, MAX_PATHS);
});

Deno.test("human output: one line per check, then each finding with its fix", () => {
  const text = renderDoctor(
    "peaks 2.0.0",
    [
      { name: "skills", status: "finding", summary: "1 folder checked" },
      { name: "records", status: "ok", summary: "3 record(s) read" },
    ],
    [{
      id: "skills.modified",
      check: "skills",
      severity: "warning",
      title: "1 edited file",
      detail: "Edited copies are kept.",
      fix: "peaks skills install --force",
      confirm: true,
      paths: [".claude/skills/a/SKILL.md"],
    }],
  );
  assertEquals(text.split("\n"), [
    "peaks 2.0.0",
    "  skills   1 finding(s)  1 folder checked",
    "  records  ok            3 record(s) read",
    "",
    "WARNING skills.modified: 1 edited file",
    "  Edited copies are kept.",
    "  paths: .claude/skills/a/SKILL.md",
    "  fix (ask the user first): peaks skills install --force",
  ]);
});

Deno.test("in-process under --allow-all the runtime check says the permissions are broader than the binary's", async () => {
  await using dir = await tempDir();
  const result = await runInProcess(["doctor", "--json"], { cwd: dir.path, env: {} });
  assertEquals(result.code, 0, result.stdout);
  const broad = result.json.data.findings.find((f: { id: string }) =>
    f.id === "runtime.broad-permissions"
  );
  assertEquals(broad?.severity, "info");
  assertEquals(result.json.data.facts.runtime.permissions.unscoped, [
    "run",
    "net",
    "env",
    "sys",
    "ffi",
  ]);
});
