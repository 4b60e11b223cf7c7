/**
 * `deno task test:hosts`: the host suite. Real host CLIs at pinned versions
 * (installed from the npm registry into a cache outside the repository,
 * reused when present), real peaks, loopback stand-ins for the model APIs.
 *
 * The main suite excludes tests/hosts/ (deno.json `test.exclude`); this
 * runner installs the hosts first, so an npm failure is one clear message
 * instead of a failure per test, then runs `deno test` on tests/hosts/ with
 * a copy of the config that does not exclude it, at most two test files at
 * a time (`PEAKS_HOSTS_JOBS`). Arguments are passed on to `deno test`
 * (`--filter`, file paths). Given files, only the hosts they name are installed
 * first; given only `--filter`, none are, and each test installs what it uses
 * (tests/hosts/support/needs.ts).
 */
import { fromFileUrl, join } from "../../lib/infra/std.ts";
import { cacheRoot, ensureHost, PINNED } from "./support/install.ts";
import { hostsToInstall } from "./support/needs.ts";

const REPO = fromFileUrl(new URL("../../", import.meta.url));
const started = performance.now();

const flags: string[] = [];
const given: string[] = [];
for (let i = 0; i < Deno.args.length; i++) {
  const arg = Deno.args[i];
  if (!arg.startsWith("-")) given.push(arg);
  else flags.push(arg, ...(arg === "--filter" ? [Deno.args[++i]] : []));
}
const files = given.length ? given : [join(REPO, "tests", "hosts")];
const filtered = flags.some((f) => f === "--filter" || f.startsWith("--filter="));
// A path that is not a readable file (a folder, a typo) counts as needing every host.
const hosts = await hostsToInstall(
  given,
  filtered,
  (path) => Deno.readTextFile(path).catch(() => undefined),
);
console.log(`hosts: cache ${cacheRoot()}; installing first: ${hosts.join(", ") || "none"}`);
try {
  // Two at a time: each is a few hundred MB from the registry.
  for (let i = 0; i < hosts.length; i += 2) {
    await Promise.all(
      hosts.slice(i, i + 2).map(async (id) => {
        await ensureHost(id);
        console.log(`hosts: ${PINNED[id].pkg}@${PINNED[id].version} ready`);
      }),
    );
  }
} catch (error) {
  console.error(`hosts: ${(error as Error).message}`);
  console.log("FAILED | 0 passed | 1 failed (the host CLIs could not be installed)");
  Deno.exit(1);
}

const config = JSON.parse(await Deno.readTextFile(join(REPO, "deno.json")));
config.test.exclude = (config.test.exclude as string[]).filter((path) => path !== "tests/hosts/");
config.lock = { path: join(REPO, "deno.lock"), frozen: true };
const dir = await Deno.makeTempDir({ prefix: "peaks-hosts-config-" });
const generated = join(dir, "deno.json");
await Deno.writeTextFile(generated, JSON.stringify(config));

const jobs = Deno.env.get("PEAKS_HOSTS_JOBS") ?? "2";
const child = new Deno.Command(Deno.execPath(), {
  args: ["test", "-q", "--allow-all", "--parallel", "--config", generated, ...flags, ...files],
  cwd: REPO,
  env: { DENO_JOBS: jobs, NO_COLOR: Deno.env.get("NO_COLOR") ?? "" },
  stdin: "null",
}).spawn();
const status = await child.status;
await Deno.remove(dir, { recursive: true }).catch(() => {});
console.log(`hosts: suite finished in ${Math.round((performance.now() - started) / 1000)} s`);
Deno.exit(status.code);
