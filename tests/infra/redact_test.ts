/**
 * The redactor's quick test for a possible secret lets every shape through to
 * the patterns, whatever its case, and returns text without one unchanged.
 */
import { assert, assertEquals, assertStrictEquals } from "@std/assert";
import { redact, redactDeep } from "../../lib/infra/redact.ts";

Deno.test("every secret shape, in any case, still reaches the patterns", () => {
  const cases: [string, string][] = [
    ["BEARER abcdefghijklmnop1234", "abcdefghijklmnop1234"],
    ["bearer abcdefghijklmnop1234", "abcdefghijklmnop1234"],
    ["PASSWORD=hunter2hunter2", "hunter2"],
    ["Passwd: 'correct horse'", "correct horse"],
    ["Secret=s3cr3tvalue", "s3cr3tvalue"],
    ["TOKEN: abc123def", "abc123def"],
    ["Access-Key=AAAABBBBCCCC", "AAAABBBBCCCC"],
    ["APIKEY=zzzyyyxxx", "zzzyyyxxx"],
    ["Api_Key: 'qqqwwweee'", "qqqwwweee"],
    ["ASIAIOSFODNN7EXAMPLE", "IOSFODNN7"],
    ["gho_abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz"],
    ["SSH://bob:pa55word@host/x", "pa55word"],
    [
      "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaA\n-----END OPENSSH PRIVATE KEY-----",
      "b3BlbnNzaA",
    ],
    ["-----BEGIN CERTIFICATE-----\nMIIBszCCAVmg\n-----END CERTIFICATE-----", "MIIBszCCAVmg"],
  ];
  for (const [secret, piece] of cases) {
    const out = redact(`failed with ${secret} here`);
    assert(out.includes("REDACTED"), `${secret}: ${out}`);
    assert(!out.includes(piece), `${piece} leaked from ${secret}: ${out}`);
  }
});

Deno.test("text with no possible secret comes back as the same string", () => {
  const plain = "The batch now has 22 members; over 6 in parallel is hard to converge.";
  assertStrictEquals(redact(plain), plain);
  const warnings = [{ code: "BATCH_OVER_LIMIT", message: plain, count: 22 }];
  assertEquals(redactDeep(warnings), warnings);
});
