import { assertEquals } from "@std/assert";
import { commandReference } from "../../tools/reference.ts";

Deno.test("docs/commands.md matches the command table (run `deno task docs` after changing a command)", async () => {
  const committed = await Deno.readTextFile(new URL("../../docs/commands.md", import.meta.url));
  assertEquals(committed, await commandReference());
});
