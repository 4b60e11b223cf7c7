/** Long functions hide several ideas; past 80 lines, split along them. */
import { assertEquals } from "@std/assert";
import { REPO } from "../support/cli.ts";
import { functionLengths, longFunctions } from "../support/function_length.ts";

Deno.test("no function in lib runs past 80 lines", () => {
  assertEquals(longFunctions(REPO, 80), []);
});

Deno.test("the length check measures every kind of function, nested ones too", () => {
  const source = [
    "function a() {",
    "  const b = () => {",
    "    return 1;",
    "  };",
    "  return b();",
    "}",
    "class C {",
    "  m() {",
    "    return 2;",
    "  }",
    "}",
    "const spec = { run: async function () {} };",
  ].join("\n");
  assertEquals(
    functionLengths("x.ts", source).map((f) => [f.name, f.line, f.lines]),
    [["a", 1, 6], ["b", 2, 3], ["m", 8, 3], ["run", 12, 1]],
  );
});
