/**
 * Test helper run as its own process (with the binary's permissions): one
 * locked read-modify-write increment of a JSON counter. A third argument
 * `pure` declares the update pure, so it is rehearsed while the file is busy.
 */
import { z } from "zod";
import { updateJson } from "../../lib/infra/fs/json.ts";

const CounterSchema = z.object({ count: z.number().int(), writers: z.array(z.string()) });

const [path, id, pure] = Deno.args;
await updateJson(path, CounterSchema, { what: "counter", pure: pure === "pure" }, (current) => {
  const value = current ?? { count: 0, writers: [] };
  return { value: { count: value.count + 1, writers: [...value.writers, id] }, result: undefined };
});
