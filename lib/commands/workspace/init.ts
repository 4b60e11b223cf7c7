import { defineCommand } from "../../infra/command/spec.ts";
import { flag } from "../../infra/command/flag.ts";
import { resolveProject } from "../../workspace/project.ts";
import { assertId } from "../../infra/ids.ts";
import { anchorWorkspace } from "../../session/anchor.ts";
import { peaksLine } from "../../infra/shell.ts";

export default defineCommand({
  name: "workspace init",
  description:
    "Creates .peaks/ (with _runtime/, _sub_agents/ and a managed .gitignore) and binds a session. " +
    "Running it again reuses the bound session and changes nothing else. --session-id binds (and creates) that session.",
  flags: {
    "session-id": flag.string("Bind this session instead of reusing or creating one.", {
      placeholder: "<sid>",
      max: 128,
    }),
  },
  examples: [
    "peaks workspace init --json",
    "peaks workspace init --project ./my-app --json",
    "peaks workspace init --session-id 2026-11-29-session-a1b2c3 --json",
  ],
  async run({ flags }, ctx) {
    const wanted = flags["session-id"] === undefined
      ? undefined
      : assertId(flags["session-id"], "--session-id");
    const project = await resolveProject(ctx);
    const decision = await anchorWorkspace(ctx, project, wanted);
    const data = {
      projectRoot: project.root,
      sessionId: decision.sessionId,
      session: decision.how,
      previousSessionId: decision.previous ?? null,
      gitignore: decision.gitignore,
      created: decision.created,
      existing: decision.existing,
    };
    const verb = decision.how === "created"
      ? "created"
      : decision.how === "bound"
      ? "bound"
      : "reused";
    return {
      data,
      human: [
        `workspace ready at ${project.root}`,
        `session ${decision.sessionId} (${verb})`,
        decision.created.length ? `created: ${decision.created.join(", ")}` : "nothing new created",
      ].join("\n"),
      nextActions: [
        peaksLine(project.root, ["session", "start", "--skill", "peaks-code"]),
      ],
    };
  },
});
