/**
 * Host facts live in the host files (lib/hosts/<host>.ts) and nowhere else in
 * lib, and the permissions deno.json grants the binary are exactly the base
 * set plus what the host files declare.
 */
import { assert, assertEquals } from "@std/assert";
import { hostPermissions, HOSTS } from "../../lib/hosts/registry.ts";
import { HOOK_HOST_DECLS, HOOK_HOST_FACTS, type HookHost } from "../../lib/hooks/hosts.ts";
import { VENDORS } from "../../lib/hosts/vendors.ts";
import { REPO } from "../support/cli.ts";

/** What peaks itself needs, whatever the host. */
const BASE_ENV = ["HOME", "USERPROFILE", "PATH", "PATHEXT", "PEAKS_*", "HEADROOM_BASE_URL"];
const BASE_RUN = ["git", "peaks", "deno"];

function facts(): string[] {
  const out = new Set<string>();
  for (const host of HOSTS) {
    // Tool names with an underscore are distinctive (spawn_agent); "task" and "agent" are words.
    for (const name of [host.subAgent?.tool, host.subAgent?.namespace]) {
      if (name && name.includes("_")) out.add(name);
    }
    host.envVars.forEach((v) => out.add(v));
    for (const folder of [...host.skills?.project ?? [], ...host.skills?.user ?? []]) {
      out.add(folder);
    }
  }
  return [...out];
}

function libFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) files.push(...libFiles(path));
    else if (entry.name.endsWith(".ts")) files.push(path);
  }
  return files;
}

Deno.test("no host fact is spelled in lib outside lib/hosts", () => {
  const leaks: string[] = [];
  const all = facts();
  for (const file of libFiles(`${REPO}/lib`)) {
    if (file.startsWith(`${REPO}/lib/hosts/`)) continue;
    const text = Deno.readTextFileSync(file);
    for (const fact of all) {
      const escaped = fact.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      if (new RegExp(`(^|[^A-Za-z0-9_])${escaped}($|[^A-Za-z0-9_])`).test(text)) {
        leaks.push(`${file.slice(REPO.length + 1)}: ${fact}`);
      }
    }
  }
  assertEquals(leaks, []);
});

Deno.test("the fact check can fail: it sees a planted fact", () => {
  assert(facts().includes("spawn_agent"));
  assert(facts().includes("GEMINI_CLI"));
  assert(facts().includes(".qwen/skills"));
});

const peaksPermissions = () =>
  JSON.parse(Deno.readTextFileSync(`${REPO}/deno.json`)).permissions.peaks as {
    env: string[];
    run: string[];
  };

Deno.test("deno.json grants env and run exactly: the base set plus what the host files declare", () => {
  const granted = peaksPermissions();
  const hosts = hostPermissions();
  assertEquals([...granted.env].sort(), [...new Set([...BASE_ENV, ...hosts.env])].sort());
  assertEquals([...granted.run].sort(), [...new Set([...BASE_RUN, ...hosts.run])].sort());
});

Deno.test("every host's detection variable is granted (directly or by a prefix pattern)", () => {
  const granted = peaksPermissions().env;
  for (const host of HOSTS) {
    for (const name of host.envVars) {
      const ok = granted.some((g) =>
        g.endsWith("*") ? name.startsWith(g.slice(0, -1)) : g === name
      );
      assert(ok, `${host.id}: ${name} is read for detection but not granted in deno.json`);
    }
  }
});

Deno.test("the detached vendors are exactly the hosts' vendors", () => {
  assertEquals(
    [...VENDORS].sort(),
    HOSTS.flatMap((h) => h.vendor ? [h.vendor] : []).sort(),
  );
});

Deno.test("the hook hosts are exactly the hosts that declare hooks, each's sub-agent tools its own", () => {
  assertEquals(
    Object.values(HOOK_HOST_DECLS).map((h) => h.id).sort(),
    HOSTS.filter((h) => h.hooks).map((h) => h.id).sort(),
  );
  for (const id of Object.keys(HOOK_HOST_DECLS) as HookHost[]) {
    const host = HOOK_HOST_DECLS[id];
    assertEquals(HOOK_HOST_FACTS[id], host.hooks, id);
    assertEquals(
      host.hooks!.subAgentTools,
      [host.subAgent!.tool, ...host.subAgent!.aliases],
      `${id}: the hooks' sub-agent tools are the host's sub-agent tool`,
    );
    if (host.subAgent!.verified) assertEquals(host.hooks!.version, host.subAgent!.version, id);
  }
});
