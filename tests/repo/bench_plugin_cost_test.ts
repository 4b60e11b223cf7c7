import { assertEquals } from "@std/assert";
import { parseDetails } from "../../bench/plugin_cost.ts";

const DETAILS = `peaks 2.0.0
Projected token cost
  Always-on:   ~523 tok   added to every session

Per-component (rounded)
  component   always-on  on-invoke
  peaks-ui          ~90       ~670
  peaks-code       ~100      ~2.6k

  On-invoke cost is paid each time a skill or agent fires.
`;

Deno.test("the bench reads Claude Code's plugin details: the always-on total and each skill", () => {
  assertEquals(parseDetails(DETAILS), {
    alwaysOn: "~523 tok",
    skills: [
      { skill: "peaks-ui", alwaysOn: "~90", onInvoke: "~670" },
      { skill: "peaks-code", alwaysOn: "~100", onInvoke: "~2.6k" },
    ],
  });
  assertEquals(parseDetails("nothing here"), { alwaysOn: null, skills: [] });
});
