/**
 * The binary's permission set may not grow beyond what the committed audit
 * justifies: docs/permissions-audit.json records the `peaks` set it was made
 * for and what used each grant. Change deno.json, then run
 * `deno task audit:permissions` and review the new report.
 */
import { assert, assertEquals } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { REPO } from "../support/cli.ts";
import type { AuditReport } from "../permissions/report.ts";

const config = JSON.parse(await Deno.readTextFile(join(REPO, "deno.json")));
const report: AuditReport = JSON.parse(
  await Deno.readTextFile(join(REPO, "docs", "permissions-audit.json")),
);
const peaks: Record<string, unknown> = config.permissions.peaks;

Deno.test("deno.json's peaks permission set is the one the audit report justified", () => {
  assertEquals(peaks, report.granted, "re-run `deno task audit:permissions` and review it");
});

Deno.test("every grant was used by the test suite or has a written reason; nothing used is ungranted", () => {
  assertEquals(report.unjustified, []);
  assertEquals(report.ungranted, []);
  for (const grant of report.grants) {
    assert(grant.observed.length > 0 || grant.reason, `${grant.kind}:${grant.value}`);
  }
  assert(report.processes > 100, `only ${report.processes} audited processes`);
});

Deno.test("the set grants no broad permission: no sys, ffi, all-hosts net, any-program run, all env", () => {
  for (const kind of ["sys", "ffi", "all"]) assert(!(kind in peaks), kind);
  for (const kind of ["net", "run", "env", "import"]) {
    assert(Array.isArray(peaks[kind]) && (peaks[kind] as unknown[]).length > 0, kind);
  }
  assertEquals(peaks.net, ["127.0.0.1", "localhost", "[::1]"]);
  assertEquals(peaks.import, ["localhost:0"]);
});

Deno.test("the report names no path of the machine it was made on", async () => {
  const text = await Deno.readTextFile(join(REPO, "docs", "permissions-audit.json")) +
    await Deno.readTextFile(join(REPO, "docs", "permissions-audit.md"));
  const temp = await Deno.makeTempDir();
  await Deno.remove(temp);
  const home = Deno.env.get("HOME");
  const machine = [REPO.replace(/\/$/, ""), temp.replace(/[^/\\]+$/, ""), ...(home ? [home] : [])];
  for (const leak of machine) {
    assert(!text.includes(leak), leak);
  }
});
