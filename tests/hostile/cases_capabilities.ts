/** Hostile cases: `peaks capabilities` (it only reads the host's MCP settings). */
import { join } from "../../lib/infra/std.ts";
import { big, type CommandCases, symlinkOut, write } from "./model.ts";

const mcpJson = (root: string) => join(root, ".mcp.json");

export const CAPABILITIES_CASES: Record<string, CommandCases> = {
  capabilities: {
    baseline: () => ["capabilities", "--ide", "claude-code"],
    cases: [
      {
        name: ".mcp.json is truncated",
        setup: (fx) => write(mcpJson(fx.root), '{"mcpServers": {"playwright": {'),
        argv: () => ["capabilities", "--ide", "claude-code"],
        exit: [0, 1],
        unchanged: true,
      },
      {
        name: ".mcp.json is a JSON array",
        setup: (fx) => write(mcpJson(fx.root), "[]\n"),
        argv: () => ["capabilities", "--ide", "claude-code"],
        exit: [0, 1],
        unchanged: true,
      },
      {
        name: ".mcp.json is a symlink out of the project",
        setup: (fx) => symlinkOut(fx, mcpJson(fx.root)),
        argv: () => ["capabilities", "--ide", "claude-code"],
        exit: [0, 1, 2, 3],
        unchanged: true,
      },
      {
        name: ".mcp.json is huge",
        setup: (fx) => write(mcpJson(fx.root), big(8 * 1024 * 1024)),
        argv: () => ["capabilities", "--ide", "claude-code"],
        exit: [0, 1],
        unchanged: true,
      },
      {
        name: "an --ide peaks does not know",
        argv: () => ["capabilities", "--ide", "x".repeat(5000)],
        exit: [1, 2],
      },
    ],
  },
};
