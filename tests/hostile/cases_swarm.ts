/** Hostile cases for the swarm commands (the fixture's PRD request r1 is still a draft). */
import { join } from "../../lib/infra/std.ts";
import { type CommandCases, sessionDir, truncate, UNICODE, write } from "./model.ts";

const planFile = (fx: Parameters<typeof sessionDir>[0]) =>
  join(sessionDir(fx), "sc", "swarm-plan-r1.json");

const slicesFile = (fx: Parameters<typeof sessionDir>[0]) =>
  join(sessionDir(fx), "rd", "slices-r1.json");

const sliceNode = (id: string, owns: string[]) => ({
  id,
  role: "rd",
  prompt: `slice ${id}`,
  owns,
  isolation: "worktree",
});

export const SWARM_CASES: Record<string, CommandCases> = {
  "swarm slices": {
    baseline: () => ["swarm", "slices", "--rid", "r1"],
    cases: [
      {
        name: "no slice DAG written: the usual case, answered with the next step",
        argv: () => ["swarm", "slices", "--rid", "r1"],
        exit: 0,
        unchanged: true,
      },
      {
        name: "rid with a path escape",
        argv: () => ["swarm", "slices", "--rid", "../r1"],
        exit: 2,
        code: "INVALID_IDENTIFIER",
      },
      {
        name: "file outside the project",
        argv: () => ["swarm", "slices", "--rid", "r1", "--file", "../../etc/passwd"],
        exit: 2,
        code: "PATH_OUTSIDE_PROJECT",
      },
      {
        name: "truncated slice DAG",
        setup: async (fx) => {
          await write(
            slicesFile(fx),
            JSON.stringify({ nodes: [sliceNode("a", ["src/"])], edges: [] }),
          );
          await truncate(slicesFile(fx));
        },
        argv: () => ["swarm", "slices", "--rid", "r1"],
        exit: 2,
        code: "DAG_INVALID",
        unchanged: true,
      },
      {
        name: "two slices of one level own one folder",
        setup: (fx) =>
          write(
            slicesFile(fx),
            JSON.stringify({
              nodes: [sliceNode("a", ["src/"]), sliceNode("b", ["./src/api/../"])],
              edges: [],
            }),
          ),
        argv: () => ["swarm", "slices", "--rid", "r1"],
        exit: 2,
        code: "DAG_INVALID",
      },
      {
        name: "a slice owning an absolute path",
        setup: (fx) =>
          write(
            slicesFile(fx),
            JSON.stringify({ nodes: [sliceNode("a", ["/etc"])], edges: [] }),
          ),
        argv: () => ["swarm", "slices", "--rid", "r1"],
        exit: 2,
        code: "DAG_INVALID",
      },
      {
        name: "a slice DAG that is a folder",
        setup: (fx) => Deno.mkdir(slicesFile(fx), { recursive: true }),
        argv: () => ["swarm", "slices", "--rid", "r1"],
        exit: 2,
        code: "INVALID_FLAG_VALUE",
      },
    ],
  },
  "swarm plan": {
    baseline: () => ["swarm", "plan", "--rid", "r1"],
    cases: [
      {
        name: "PRD still a draft",
        argv: () => ["swarm", "plan", "--rid", "r1"],
        exit: 3,
        code: "PRD_NOT_READY",
      },
      {
        name: "no such request",
        argv: () => ["swarm", "plan", "--rid", "nope"],
        exit: 3,
        code: "PRD_NOT_READY",
      },
      {
        name: "rid with a path escape",
        argv: () => ["swarm", "plan", "--rid", "../r1"],
        exit: 2,
        code: "INVALID_IDENTIFIER",
      },
      {
        name: "rid with a control character",
        argv: () => ["swarm", "plan", "--rid", "r\u00011"],
        exit: 2,
      },
      {
        name: "rid with emoji",
        argv: () => ["swarm", "plan", "--rid", UNICODE.emoji],
        exit: 2,
        code: "INVALID_IDENTIFIER",
      },
      {
        name: "unknown choice",
        argv: () => ["swarm", "plan", "--rid", "r1", "--choice", "everything"],
        exit: 2,
        code: "INVALID_FLAG_VALUE",
      },
      {
        name: "unknown mode",
        argv: () => ["swarm", "plan", "--rid", "r1", "--mode", "turbo"],
        exit: 2,
        code: "INVALID_FLAG_VALUE",
      },
    ],
  },
  "swarm converge": {
    baseline: () => ["swarm", "converge", "--rid", "r1"],
    cases: [
      {
        name: "no plan yet",
        argv: () => ["swarm", "converge", "--rid", "r1"],
        exit: [1, 3],
      },
      {
        name: "truncated plan",
        setup: async (fx) => {
          await write(planFile(fx), JSON.stringify({ rid: "r1", type: "feature", subAgents: [] }));
          await truncate(planFile(fx));
        },
        argv: () => ["swarm", "converge", "--rid", "r1"],
        exit: 1,
        code: "RECORD_UNREADABLE",
      },
      {
        name: "plan that is not an object",
        setup: (fx) => write(planFile(fx), "[1, 2, 3]"),
        argv: () => ["swarm", "converge", "--rid", "r1"],
        exit: 1,
        code: "RECORD_UNREADABLE",
      },
      {
        name: "plan with extra and missing fields",
        setup: (fx) => write(planFile(fx), JSON.stringify({ rid: "r1", surprise: true })),
        argv: () => ["swarm", "converge", "--rid", "r1"],
        exit: 1,
        code: "RECORD_UNREADABLE",
      },
      {
        name: "rid with control characters",
        argv: () => ["swarm", "converge", "--rid", "r1\u0007"],
        exit: 2,
      },
    ],
  },
};
