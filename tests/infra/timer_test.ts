/**
 * The timers built on `AbortSignal.timeout` (lib/infra/timer.ts): they fire,
 * repeat and cancel like setTimeout/setInterval, a cancelled one does not
 * hold the process open, and lib makes none of the calls whose first use is slow.
 */
import { assert, assertEquals } from "@std/assert";
import { after, every, sleep, within } from "../../lib/infra/timer.ts";
import { REPO } from "../support/cli.ts";
import { join } from "../../lib/infra/std.ts";

Deno.test("sleep and after fire; within gives the work's value or undefined", async () => {
  await sleep(1);
  await after(0).done;
  assertEquals(await within(Promise.resolve(7), 60_000), 7);
  assertEquals(await within(new Promise<number>(() => {}), 1), undefined);
  const failing = within(Promise.reject(new Error("boom")), 60_000);
  assertEquals(await failing.then(() => "ok", (e) => e.message), "boom");
});

Deno.test("a delay past the runtime's 2^31-1 ms bound waits instead of firing at once", async () => {
  let fired = false;
  const timer = after(2 ** 32);
  timer.done.then(() => (fired = true));
  await sleep(200);
  timer.cancel();
  assertEquals(fired, false);
});

Deno.test("every repeats until stopped, and not once after", async () => {
  let calls = 0;
  let stop = () => {};
  await new Promise<void>((resolve) => {
    stop = every(1, () => {
      calls++;
      if (calls === 3) resolve();
    });
  });
  stop();
  const seen = calls;
  await sleep(20);
  assertEquals(calls, seen);
  assertEquals(seen, 3);
});

async function runChild(code: string): Promise<{ code: number; stdout: string }> {
  const dir = await Deno.makeTempDir();
  try {
    const file = join(dir, "child.ts");
    const timer = new URL("../../lib/infra/timer.ts", import.meta.url).href;
    await Deno.writeTextFile(file, `import { after, every } from "${timer}";\n${code}\n`);
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-q", "--no-config", "--no-lock", file],
      clearEnv: true,
      env: { HOME: dir, DENO_DIR: Deno.env.get("DENO_DIR") ?? join(dir, "deno") },
      stdout: "piped",
      stderr: "inherit",
    }).output();
    return { code: out.code, stdout: new TextDecoder().decode(out.stdout).trim() };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a pending timer keeps the process alive; a cancelled one does not", async () => {
  const live = await runChild(`after(5).done.then(() => console.log("fired"));`);
  assertEquals(live, { code: 0, stdout: "fired" });
  // Were the cancelled timers still holding the loop, this child would run for ten minutes.
  const cancelled = await runChild(
    `const t = after(600_000); t.done.then(() => console.log("fired")); t.cancel();
     const stop = every(600_000, () => console.log("beat")); stop();
     console.log("exiting");`,
  );
  assertEquals(cancelled, { code: 0, stdout: "exiting" });
});

/** Runtime calls whose first use in a process costs more than a hot call's own work. */
const TRAPS: Array<{ pattern: RegExp; why: string; allowed?: string }> = [
  {
    pattern: /\b(setTimeout|setInterval)\s*\(/,
    why: "loads the Node timer classes (~12 ms): use lib/infra/timer.ts",
    allowed: join("core", "timer.ts"),
  },
  {
    pattern: /\.localeCompare\s*\(|\bIntl\./,
    why: "builds an ICU collator or formatter (10-25 ms): use compareText from lib/infra/ids.ts",
  },
  {
    pattern: /\.toISOString\s*\(/,
    why: "costs about 1 ms on its first call: use isoTime from lib/infra/ids.ts",
    allowed: join("infra", "ids.ts"),
  },
];

Deno.test("lib makes no call whose first use costs a hot command more than its work", async () => {
  const offenders: string[] = [];
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) await walk(path);
      else if (entry.name.endsWith(".ts")) {
        const text = await Deno.readTextFile(path);
        for (const trap of TRAPS) {
          if (trap.allowed && path.endsWith(trap.allowed)) continue;
          if (trap.pattern.test(text)) offenders.push(`${path.slice(REPO.length)}: ${trap.why}`);
        }
      }
    }
  };
  await walk(join(REPO, "lib"));
  assert(offenders.length === 0, offenders.join("\n"));
});
