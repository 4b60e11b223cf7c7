/**
 * .ci/audit.ts against a loopback stand-in of the registry's bulk advisory endpoint: a planted
 * known-vulnerable pin fails it, the real deno.lock is read whole, an unanswered check is no pass.
 */
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { REPO } from "../support/cli.ts";
import { pinnedPackages } from "../../.ci/audit.ts";

/** The advisories the registry lists for minimist (as its bulk endpoint answers). */
const MINIMIST = [
  {
    id: 1179,
    title: "Prototype Pollution in minimist",
    severity: "moderate",
    url: "https://github.com/advisories/GHSA-vh95-rmgr-6w4m",
    vulnerable_versions: "<0.2.1",
  },
  {
    id: 1097678,
    title: "Prototype Pollution in minimist",
    severity: "critical",
    url: "https://github.com/advisories/GHSA-xvch-5gv4-984h",
    vulnerable_versions: ">=1.0.0 <1.2.6",
  },
];

async function audit(lock: string, answer: (asked: Record<string, string[]>) => Response) {
  const asked: Record<string, string[]>[] = [];
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (req) => {
      const body = await req.json();
      asked.push(body);
      return answer(body);
    },
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-q",
      "--allow-read",
      "--allow-net=127.0.0.1",
      "--config",
      join(REPO, "deno.json"),
      join(REPO, ".ci", "audit.ts"),
      "--lock",
      lock,
      "--endpoint",
      `http://127.0.0.1:${server.addr.port}/-/npm/v1/security/advisories/bulk`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  return { code: out.code, text, asked };
}

const planted = join(REPO, "tests", "fixtures", "audit", "planted.lock");
const advisories = (asked: Record<string, string[]>) =>
  Response.json(Object.hasOwn(asked, "minimist") ? { minimist: MINIMIST } : {});

Deno.test("a planted known-vulnerable pin fails the audit, naming it and the advisory", async () => {
  const result = await audit(planted, advisories);
  assertEquals(result.code, 1, result.text);
  assertEquals(result.asked, [{ minimist: ["1.2.0"], zod: ["4.6.7"] }]);
  assertStringIncludes(
    result.text,
    "audit: minimist@1.2.0 is known-vulnerable: Prototype Pollution in minimist (critical",
  );
  assert(!result.text.includes("<0.2.1"), "an advisory that does not cover 1.2.0 is not reported");
});

Deno.test("the project's own lock is sent whole and passes when no advisory covers it", async () => {
  const lock = join(REPO, "deno.lock");
  const result = await audit(lock, advisories);
  assertEquals(result.code, 0, result.text);
  assertEquals(result.asked, [pinnedPackages(await Deno.readTextFile(lock))]);
  assert(Object.keys(result.asked[0]).includes("zod"));
});

Deno.test("an advisory service that does not answer is no pass", async () => {
  const result = await audit(planted, () => new Response("", { status: 405 }));
  assertEquals(result.code, 2, result.text);
  assertStringIncludes(result.text, "did not answer (HTTP 405");
});

Deno.test("lock keys with a scope or peer suffix are read as name and version", () => {
  const lock = JSON.stringify({
    npm: { "@scope/pkg@1.2.3_react@18.0.0": {}, "plain@0.1.0": {}, "plain@0.2.0": {} },
  });
  assertEquals(pinnedPackages(lock), { "@scope/pkg": ["1.2.3"], plain: ["0.1.0", "0.2.0"] });
});
