/** CONTRIBUTING.md and CHANGELOG.md exist and every `deno task` they name is a task of deno.json. */
import { assert } from "@std/assert";
import { join } from "../../lib/infra/std.ts";
import { REPO } from "../support/cli.ts";

Deno.test("the tasks CONTRIBUTING.md and CHANGELOG.md name are deno.json's", async () => {
  const tasks = Object.keys(JSON.parse(await Deno.readTextFile(join(REPO, "deno.json"))).tasks);
  for (const file of ["CONTRIBUTING.md", "CHANGELOG.md"]) {
    const text = await Deno.readTextFile(join(REPO, file));
    const named = [...text.matchAll(/deno task ([a-z:]+)/g)].map((m) => m[1]);
    for (const task of named) assert(tasks.includes(task), `${file} names deno task ${task}`);
    if (file === "CONTRIBUTING.md") {
      for (const task of ["check", "test", "test:hosts", "bench", "walk"]) {
        assert(named.includes(task), `CONTRIBUTING.md explains deno task ${task}`);
      }
    }
  }
});
