/**
 * Load benchmark: 16 sub-agents heartbeating every 100 ms for 60 s while
 * `watch` runs, `list` and `status` poll and two `share` writers post, all as
 * real peaks processes with the binary's permissions. Prints JSON: latency
 * p50/p95/p99/max per command, achieved heartbeat rate, lost updates and
 * LOCK_TIMEOUTs (both must be zero).
 *
 *     deno run -q --allow-all bench/load.ts [--agents 16] [--interval 100] [--seconds 60]
 */
import { parseArgs } from "../lib/infra/std.ts";
import { runLoad } from "../tests/support/load.ts";

const args = parseArgs(Deno.args, { string: ["agents", "interval", "seconds", "sharers"] });
const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "peaks-load-" }));
try {
  const result = await runLoad({
    root,
    agents: Number(args.agents ?? 16),
    intervalMs: Number(args.interval ?? 100),
    durationMs: Number(args.seconds ?? 60) * 1000,
    sharers: Number(args.sharers ?? 2),
    pollGapMs: 200,
  });
  console.log(
    JSON.stringify({ machine: { cores: navigator.hardwareConcurrency }, ...result }, null, 2),
  );
  if (result.lostUpdates.length || result.lockTimeouts || result.stateViolations.length) {
    Deno.exit(1);
  }
} finally {
  await Deno.remove(root, { recursive: true }).catch(() => {});
}
