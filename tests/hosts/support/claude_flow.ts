/**
 * The scripted sides of an orchestration through Claude Code: reading
 * peaks' envelopes and briefs out of tool results, the sub-agent that
 * follows a pointer brief, and the return JSON inside the notification of a
 * background agent that finished.
 */
import { join } from "../../../lib/infra/std.ts";
import { CLAUDE } from "./hosts.ts";
import { text, tools, type Turn, type View } from "./standin.ts";

/** The first JSON document in a Bash tool result (peaks prints one line with --json). */
// deno-lint-ignore no-explicit-any
export function envelopeIn(output: string): any {
  const line = output.split("\n").find((l) => l.trim().startsWith("{"));
  if (!line) throw new Error(`no JSON in the tool result: ${output.slice(0, 300)}`);
  return JSON.parse(line);
}

/** What the brief (`peaks sub-agent brief`) says about the sub-agent. */
export function briefFacts(brief: string) {
  const pick = (label: string) => brief.match(new RegExp(`^- ${label}: (\\S+)`, "m"))?.[1];
  const record = pick("Dispatch record");
  const sid = pick("Session id");
  const rid = pick("Request id");
  const role = pick("Role");
  if (!record || !sid || !rid || !role) {
    throw new Error(`not a peaks brief: ${brief.slice(0, 300)}`);
  }
  return { record, sid, rid, role };
}

/** The scripted sub-agent: brief, heartbeat, artefact, final heartbeat, return JSON. */
export function subAgentTurn(view: View, project: string, note: string): Turn {
  const pointer = view.userText.match(/Run `(peaks sub-agent brief --record \S+)` and follow it/);
  if (view.turn === 0) return tools(CLAUDE.shell(`${pointer![1]}`));
  const facts = briefFacts(view.toolResults[0]);
  const artefact = `.peaks/_sub_agents/${facts.sid}/artifacts/${facts.rid}-${facts.role}-001.md`;
  const beat = `peaks sub-agent heartbeat --record ${facts.record} --json`;
  switch (view.turn) {
    case 1:
      return tools(
        CLAUDE.shell(`${beat} --status running --progress 40 --stage writing --note ${note}`),
      );
    case 2:
      return tools(
        CLAUDE.write(join(project, artefact), `# ${facts.role} plan for ${facts.rid}\n`),
      );
    case 3:
      return tools(
        CLAUDE.shell(
          `peaks sub-agent artifact --record ${facts.record} --path ${artefact} --summary "the plan" --json`,
        ),
      );
    case 4:
      return tools(
        CLAUDE.shell(`${beat} --status done --progress 100 --stage finalizing --note completed`),
      );
    default:
      return text(
        `Plan written.\n${
          JSON.stringify({
            role: facts.role,
            rid: facts.rid,
            status: "ok",
            artefacts: [artefact],
            warnings: [],
            blockedReason: null,
            reason: null,
            diffSummary: "no code changed",
          })
        }`,
      );
  }
}

/** The sub-agent's return JSON inside the notification of a background agent that finished. */
export function returnedResults(view: View): string[] {
  // Notifications come as user or as system turns.
  return [
    ...`${view.userText}\n${view.system}`.matchAll(
      /\{"role":"[^"]+","rid":"[^"]+","status":"ok"[^\n]*?"diffSummary":"[^"]*"\}/g,
    ),
  ]
    .map((m) => m[0]);
}
