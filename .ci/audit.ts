/**
 * The dependency audit: every npm package deno.lock pins, checked against the npm registry's
 * security advisories (the bulk endpoint `npm audit` and `deno audit` ask). A pinned version that
 * an advisory covers fails the audit, naming the package, the advisory and its address.
 *
 *   deno run --allow-read --allow-net .ci/audit.ts [--lock deno.lock] [--endpoint <url>]
 *
 * Exit 0: nothing known-vulnerable is pinned; 1: something is; 2: the lock could not be read or
 * the advisory service did not answer (a check that could not run is not a pass). `--endpoint`
 * (or PEAKS_AUDIT_ENDPOINT) points elsewhere: a mirror, or the loopback stand-in of the tests.
 */
import { parseArgs } from "../lib/infra/std.ts";
import { parse } from "@std/semver/parse";
import { parseRange } from "@std/semver/parse-range";
import { satisfies } from "@std/semver/satisfies";

export const ADVISORIES = "https://registry.npmjs.org/-/npm/v1/security/advisories/bulk";

export interface Advisory {
  id?: number;
  title?: string;
  severity?: string;
  url?: string;
  vulnerable_versions?: string;
}

export interface Finding {
  name: string;
  version: string;
  advisory: Advisory;
}

/** The lock's npm packages as name -> versions ("@scope/pkg@1.2.3_peer@4" is @scope/pkg 1.2.3). */
export function pinnedPackages(lockText: string): Record<string, string[]> {
  const lock = JSON.parse(lockText);
  const out: Record<string, string[]> = {};
  for (const key of Object.keys(lock?.npm ?? {})) {
    const at = key.indexOf("@", 1);
    if (at < 1) continue;
    const name = key.slice(0, at);
    const version = key.slice(at + 1).split("_")[0];
    (out[name] ??= []).includes(version) || out[name].push(version);
  }
  return out;
}

/** The pinned versions each advisory covers. */
export function findings(
  pinned: Record<string, string[]>,
  answer: Record<string, Advisory[]>,
): Finding[] {
  const found: Finding[] = [];
  for (const [name, advisories] of Object.entries(answer)) {
    for (const advisory of Array.isArray(advisories) ? advisories : []) {
      for (const version of pinned[name] ?? []) {
        let covered = true;
        try {
          covered = satisfies(parse(version), parseRange(advisory.vulnerable_versions ?? "*"));
        } catch {
          // A range or version this parser cannot read counts as covered: look at it by hand.
        }
        if (covered) found.push({ name, version, advisory });
      }
    }
  }
  return found;
}

async function main(): Promise<number> {
  const args = parseArgs(Deno.args, { string: ["lock", "endpoint"] });
  const lockPath = String(args.lock ?? "deno.lock");
  const endpoint = String(args.endpoint ?? Deno.env.get("PEAKS_AUDIT_ENDPOINT") ?? ADVISORIES);
  let pinned: Record<string, string[]>;
  try {
    pinned = pinnedPackages(await Deno.readTextFile(lockPath));
  } catch (error) {
    console.log(`audit: cannot read ${lockPath}: ${(error as Error).message}`);
    return 2;
  }
  const count = Object.values(pinned).reduce((n, v) => n + v.length, 0);
  let answer: Record<string, Advisory[]>;
  try {
    const response = await fetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(pinned),
      signal: AbortSignal.timeout(60_000),
    });
    if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`);
    answer = await response.json();
  } catch (error) {
    console.log(
      `audit: the advisory service at ${endpoint} did not answer (${(error as Error).message}); ` +
        `${count} pinned npm packages are unchecked. Run it where the service is reachable, or ` +
        "point --endpoint at a mirror.",
    );
    return 2;
  }
  const found = findings(pinned, answer);
  for (const f of found) {
    const a = f.advisory;
    console.log(
      `audit: ${f.name}@${f.version} is known-vulnerable: ${a.title ?? "advisory"} ` +
        `(${a.severity ?? "unrated"}, affects ${a.vulnerable_versions ?? "?"}; ${a.url ?? ""})`,
    );
  }
  console.log(
    found.length
      ? `audit: ${found.length} known-vulnerable pin(s) in ${lockPath}; update them and the lock`
      : `audit: ${count} npm packages pinned in ${lockPath}, none known-vulnerable`,
  );
  return found.length ? 1 : 0;
}

if (import.meta.main) Deno.exit(await main());
