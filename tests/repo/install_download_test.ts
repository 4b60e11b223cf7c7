/**
 * install.sh downloading from a releases address laid out like GitHub's
 * (<base>/latest/download/<file>, <base>/download/v<version>/<file>): a
 * file:// mirror, and a loopback HTTP server reached through curl or wget.
 */
import { assertEquals, assertStringIncludes } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { buildRelease, HOST, offlineTools, runInstaller, snapshot } from "../support/release.ts";
import { tempDir } from "../support/temp.ts";
import { needs } from "../support/tools.ts";

const ignore = Deno.build.os === "windows" || HOST === undefined;
const target = HOST!;

/** A releases tree holding 2.0.0 (and 2.0.1 as the latest when asked). */
async function mirror(root: string, versions: string[]): Promise<string> {
  const base = join(root, "releases");
  for (const version of versions) {
    const release = await buildRelease(join(base, "download", `v${version}`), { version, target });
    await Deno.mkdir(join(base, "latest", "download"), { recursive: true });
    await Deno.copyFile(release.archive, join(base, "latest", "download", release.name));
    await Deno.copyFile(release.sums, join(base, "latest", "download", "SHA256SUMS"));
  }
  return base;
}

async function env(root: string, base: string, extraTools: string[] = []) {
  const home = join(root, "home");
  await Deno.mkdir(home, { recursive: true });
  const tools = await offlineTools(root, [], extraTools);
  return {
    home,
    vars: { HOME: home, SHELL: "/bin/sh", PATH: tools, TMPDIR: root, PEAKS_DOWNLOAD_BASE: base },
  };
}

async function version(home: string): Promise<string> {
  const out = await new Deno.Command(join(home, ".peaks", "bin", "peaks"), {
    args: ["--version"],
    stdout: "piped",
  }).output();
  return new TextDecoder().decode(out.stdout).trim();
}

Deno.test({
  name: "install.sh downloads the latest or a chosen version from a file:// mirror",
  ignore,
  async fn() {
    await using dir = await tempDir();
    const base = await mirror(dir.path, ["2.0.0", "2.0.1"]);
    const { home, vars } = await env(dir.path, `file://${base}`);

    const latest = await runInstaller(["--yes", "--no-modify-path"], vars);
    assertEquals(latest.code, 0, latest.stderr);
    assertStringIncludes(latest.stdout, `downloading peaks 2.0.1 for ${target}`);
    assertEquals(await version(home), "peaks 2.0.1");

    const pinned = await runInstaller(["--version", "v2.0.0", "--yes", "--no-modify-path"], vars);
    assertEquals(pinned.code, 0, pinned.stderr);
    assertEquals(await version(home), "peaks 2.0.0");

    const missing = await runInstaller(["--version", "3.0.0", "--yes"], vars);
    assertEquals(missing.code, 1);
    assertStringIncludes(missing.stderr, "could not download");
    assertEquals(await version(home), "peaks 2.0.0");
  },
});

Deno.test({
  name: "install.sh refuses a mirror whose archive does not match its SHA256SUMS",
  ignore,
  async fn() {
    await using dir = await tempDir();
    const base = await mirror(dir.path, ["2.0.0"]);
    const archive = join(base, "download", "v2.0.0", `peaks-2.0.0-${target}.tar.gz`);
    const bytes = await Deno.readFile(archive);
    bytes[bytes.length - 1] ^= 0xff;
    await Deno.writeFile(archive, bytes);
    const { home, vars } = await env(dir.path, `file://${base}`);
    const result = await runInstaller(["--version", "2.0.0", "--yes"], vars);
    assertEquals(result.code, 1);
    assertStringIncludes(result.stderr, "checksum mismatch");
    assertEquals(await snapshot(home), {});
  },
});

Deno.test({
  name: "install.sh without an archive or a download address says what to set",
  ignore,
  async fn() {
    await using dir = await tempDir();
    const { home, vars } = await env(dir.path, "");
    const result = await runInstaller(["--yes"], vars);
    assertEquals(result.code, 1);
    assertStringIncludes(result.stderr, "no download address: set PEAKS_DOWNLOAD_BASE");
    assertEquals(await snapshot(home), {});
  },
});

for (const tool of ["curl", "wget"]) {
  const need = await needs(tool);
  Deno.test({
    name: `install.sh downloads over HTTP with ${tool}${need.note}`,
    ignore: ignore || need.ignore,
    async fn() {
      await using dir = await tempDir();
      const base = await mirror(dir.path, ["2.0.0"]);
      const requests: string[] = [];
      const server = Deno.serve(
        { hostname: "127.0.0.1", port: 0, onListen: () => {} },
        async (request) => {
          const path = new URL(request.url).pathname;
          requests.push(path);
          const file = join(base, ...path.replace(/^\/releases\//, "").split("/"));
          const data = await Deno.readFile(file).catch(() => undefined);
          return data ? new Response(data) : new Response("not found", { status: 404 });
        },
      );
      try {
        const { home, vars } = await env(
          dir.path,
          `http://127.0.0.1:${server.addr.port}/releases`,
          [tool],
        );
        const result = await runInstaller(["--yes", "--no-modify-path"], vars);
        assertEquals(result.code, 0, result.stderr);
        assertEquals(await version(home), "peaks 2.0.0");
        assertEquals(requests, [
          "/releases/latest/download/SHA256SUMS",
          "/releases/download/v2.0.0/SHA256SUMS",
          `/releases/download/v2.0.0/peaks-2.0.0-${target}.tar.gz`,
        ]);
      } finally {
        await server.shutdown();
      }
    },
  });
}
