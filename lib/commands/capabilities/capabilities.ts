import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { PeaksError } from "../../infra/errors.ts";
import { peaksLine } from "../../infra/shell.ts";
import { detectIde } from "../../hosts/registry.ts";
import { displayPath } from "../../workspace/paths.ts";
import { resolveProject } from "../../workspace/project.ts";
import { type Capabilities, readCapabilities } from "../../capabilities/capabilities.ts";
import { MCP_HOST_IDS, mcpHost } from "../../capabilities/servers.ts";

export default defineCommand({
  name: "capabilities",
  description:
    "Shows which design, browser and docs tools (MCP servers) the agent host can use in this project, read " +
    "from the host's own config files (Claude Code .mcp.json and ~/.claude.json, Gemini and Qwen " +
    "settings.json mcpServers, Codex config.toml [mcp_servers.*], OpenCode opencode.json mcp, Copilot " +
    ".mcp.json and ~/.copilot/mcp-config.json); the tool-name prefix the model sees for each server; and, for each " +
    "server the UI, QA or RD role uses that is missing, the host's own command to add it. Changes nothing.",
  flags: {
    ide: flag.enum(MCP_HOST_IDS, "The host to look at (default: detected)."),
  },
  examples: ["peaks capabilities --json", "peaks capabilities --ide gemini --json"],
  async run({ flags }, ctx) {
    const project = await resolveProject(ctx);
    const detected = flags.ide ? null : await detectIde(ctx.env, project.root);
    const id = flags.ide ?? detected!.ide.id;
    const host = mcpHost(id);
    if (!host) {
      throw new PeaksError(
        "HOST_NOT_SUPPORTED",
        `peaks does not know where ${id} keeps its MCP servers; name the host with --ide (${
          MCP_HOST_IDS.join(", ")
        }).`,
        {
          data: { ide: id, known: MCP_HOST_IDS },
          nextActions: MCP_HOST_IDS.map((h) =>
            peaksLine(project.root, ["capabilities"], ["--ide", h])
          ),
        },
      );
    }
    const home = ctx.env.get("HOME") || ctx.env.get("USERPROFILE") || undefined;
    const show = (path: string, scope: "project" | "user") =>
      scope === "project" || !home
        ? displayPath(project.root, path)
        : `~${path.slice(home.length)}`;
    const found = await readCapabilities(host, { projectRoot: project.root, home, show });
    return {
      data: {
        projectRoot: project.root,
        ide: host.id,
        ideSource: detected?.source ?? "flag",
        toolName: host.mcp.toolName,
        addCommand: host.mcp.add,
        ...found,
      },
      human: human(host.id, host.mcp.toolName, found),
    };
  },
});

function human(id: string, toolName: string, found: Capabilities): string {
  const lines = [`host: ${id} (tools are named ${toolName})`];
  if (!found.servers.length) lines.push("MCP servers: none configured");
  for (const s of found.servers) {
    const use = s.kind ? ` ${s.kind} for ${s.roles.join(", ")}` : "";
    lines.push(`  ${s.name}${use}: ${s.toolPrefix}* (${s.source})`);
  }
  for (const f of found.files.filter((f) => f.status === "unreadable")) {
    lines.push(`  ${f.path}: unreadable (${f.reason})`);
  }
  if (found.missing.length) lines.push("missing, add with:");
  for (const m of found.missing) lines.push(`  ${m.name} (${m.kind}): ${m.addCommand}`);
  return lines.join("\n");
}
