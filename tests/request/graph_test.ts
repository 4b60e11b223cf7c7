import { assert, assertEquals } from "@std/assert";
import { REQUEST_ROLES, type RequestRole } from "../../lib/request/file.ts";
import {
  allowedTargets,
  checkMove,
  needsConfirm,
  ROLE_PATHS,
  roleStates,
} from "../../lib/request/graph.ts";

const GRAPHS: Record<RequestRole, [string, string][]> = {
  prd: [["draft", "confirmed-by-user"], ["confirmed-by-user", "handed-off"]],
  ui: [["draft", "direction-locked"], ["direction-locked", "handed-off"]],
  rd: [["draft", "spec-locked"], ["spec-locked", "implemented"], ["implemented", "qa-handoff"]],
  qa: [["draft", "running"], ["running", "verdict-issued"]],
  sc: [
    ["draft", "impact-recorded"],
    ["impact-recorded", "boundary-recorded"],
    ["boundary-recorded", "handed-off"],
  ],
  txt: [["draft", "finalized"]],
};

/** The repair loop's back edges (opened by the transition command only after return-to-rd). */
const REWORK = new Set(["rd:qa-handoff>implemented", "qa:verdict-issued>running"]);

Deno.test("each role's edges are exactly the documented forward ones plus the rework ones", () => {
  for (const role of REQUEST_ROLES) {
    const states = ROLE_PATHS[role];
    const legal = new Set(GRAPHS[role].map(([a, b]) => `${a}>${b}`));
    for (const from of states) {
      for (const to of states) {
        if (from === to) continue;
        const move = checkMove({ role, state: from }, to);
        const rework = REWORK.has(`${role}:${from}>${to}`);
        assertEquals(move.ok, legal.has(`${from}>${to}`) || rework, `${role}: ${from} -> ${to}`);
        if (move.ok) assertEquals(move.kind, rework ? "rework" : "forward");
        else assertEquals(move.allowed, allowedTargets({ role, state: from }));
      }
    }
  }
});

Deno.test("blocked is reachable from every state of every role", () => {
  for (const role of REQUEST_ROLES) {
    for (const from of ROLE_PATHS[role]) {
      const move = checkMove({ role, state: from }, "blocked");
      assert(move.ok && move.kind === "block", `${role}: ${from} -> blocked`);
    }
  }
});

Deno.test("a blocked request returns only to the state it was blocked from", () => {
  for (const role of REQUEST_ROLES) {
    for (const from of ROLE_PATHS[role]) {
      const meta = { role, state: "blocked", blockedFrom: from };
      for (const to of ROLE_PATHS[role]) {
        const move = checkMove(meta, to);
        assertEquals(move.ok, to === from, `${role}: blocked(${from}) -> ${to}`);
        if (!move.ok) assertEquals(move.allowed, [from]);
      }
    }
  }
  assertEquals(allowedTargets({ role: "rd", state: "blocked" }), ["draft"]);
});

Deno.test("the same state is a no-op move, and every role has blocked among its states", () => {
  assertEquals(checkMove({ role: "qa", state: "running" }, "running"), { ok: true, kind: "same" });
  for (const role of REQUEST_ROLES) assert(roleStates(role).includes("blocked"));
});

Deno.test("the user-decision transitions need --confirm, the others do not", () => {
  assert(needsConfirm("prd", "confirmed-by-user"));
  assert(needsConfirm("ui", "direction-locked"));
  assert(needsConfirm("qa", "verdict-issued"));
  assert(needsConfirm("txt", "finalized"));
  assert(!needsConfirm("prd", "handed-off"));
  assert(!needsConfirm("qa", "running"));
  assert(!needsConfirm("rd", "qa-handoff"));
});
