/**
 * Takes the lock on a file the way peaks writers do, says "locked" on stdout
 * and holds it until killed. The fault tests SIGKILL it mid-hold.
 */
import { withLock } from "../../lib/infra/fs/lock.ts";

const [target] = Deno.args;
await withLock(target, async () => {
  await Deno.stdout.write(new TextEncoder().encode("locked\n"));
  await new Promise(() => setInterval(() => {}, 60_000));
});
