/**
 * The scripted stand-in for an LLM sub-agent. It is what the demo (and the
 * runbook test) runs where a real agent would: it reads the prompt peaks
 * composed, follows its protocol with real peaks commands (heartbeats,
 * shared channel, artefact registration) and does its role's work on the
 * sample project, then prints the return JSON.
 *
 * It accepts the prompt the way the vendor CLIs do (`-p <prompt>`,
 * `exec --json <prompt>`, `run <prompt>`), or `--prompt-file <file>`.
 * `STAND_IN_STEP_MS` sets the pause between steps (the live status line
 * needs something to show).
 */
import { join } from "../../lib/infra/std.ts";
import { roleWork } from "./work.ts";

interface Runtime {
  projectRoot: string;
  sessionId: string;
  requestId: string;
  batchId: string;
  record: string;
  role: string;
  type: string;
}

const STEP_MS = Number(Deno.env.get("STAND_IN_STEP_MS") ?? "700");

function promptFromArgs(args: string[]): string | undefined {
  const file = args.indexOf("--prompt-file");
  if (file !== -1) return Deno.readTextFileSync(args[file + 1]);
  return args.find((arg) =>
    arg.includes("## Runtime arguments") || arg.includes("peaks sub-agent brief")
  );
}

function field(prompt: string, label: string): string {
  const match = new RegExp(`^- ${label}: (.+)$`, "m").exec(prompt);
  if (!match) throw new Error(`the prompt has no "${label}" runtime argument`);
  return match[1].trim();
}

/** Runtime facts from either prompt shape: in-process (`## Runtime arguments`) or detached (header lines). */
export function readRuntime(prompt: string): Runtime {
  const detached = /^# Detached sub-agent: (\S+) for (\S+)$/m.exec(prompt);
  if (detached) {
    const header = /^Project (.+) \| session (\S+) \| request (\S+) \| batch (\S+)$/m.exec(prompt);
    const record = /^Record (\S+) \|/m.exec(prompt);
    if (!header || !record) throw new Error("the detached prompt has no project or record line");
    return {
      projectRoot: header[1],
      sessionId: header[2],
      requestId: header[3],
      batchId: header[4],
      record: record[1],
      role: detached[1],
      type: /\(type (feature|bugfix|refactor|config|docs|chore)\)/.exec(prompt)?.[1] ?? "feature",
    };
  }
  return {
    projectRoot: field(prompt, "Project root"),
    sessionId: field(prompt, "Session id"),
    requestId: field(prompt, "Request id"),
    batchId: field(prompt, "Batch id"),
    record: field(prompt, "Dispatch record"),
    role: field(prompt, "Role"),
    // "unknown (no PRD request …)" when the PRD is missing: plan as a feature.
    type:
      /^(feature|bugfix|refactor|config|docs|chore)\b/.exec(field(prompt, "Request type"))?.[1] ??
        "feature",
  };
}

/** Runs `peaks <args> --json` the way the sub-agent's prompt tells it to. */
export async function peaks(root: string, args: string[]): Promise<Record<string, unknown>> {
  const prefix: string[] = JSON.parse(Deno.env.get("STAND_IN_PEAKS") ?? '["peaks"]');
  const out = await new Deno.Command(prefix[0], {
    args: [...prefix.slice(1), ...args, "--project", root, "--json"],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(
      `peaks ${args.join(" ")} printed no envelope: ${new TextDecoder().decode(out.stderr)}`,
    );
  }
}

const pause = () => new Promise((resolve) => setTimeout(resolve, STEP_MS));

async function beat(
  rt: Runtime,
  progress: number,
  stage: string,
  note: string,
  status = "running",
) {
  await peaks(rt.projectRoot, [
    "sub-agent",
    "heartbeat",
    "--record",
    rt.record,
    "--status",
    status,
    "--progress",
    String(progress),
    "--stage",
    stage,
    "--note",
    note,
  ]);
}

async function main(): Promise<void> {
  let prompt = promptFromArgs(Deno.args) ?? await new Response(Deno.stdin.readable).text();
  const pointer = /peaks sub-agent brief --record ([^\s`]+)/.exec(prompt);
  if (
    pointer && !prompt.includes("## Runtime arguments") && !prompt.includes("# Detached sub-agent:")
  ) {
    const root = /--project (\S+)/.exec(prompt)?.[1] ?? Deno.cwd();
    const brief = await peaks(root, ["sub-agent", "brief", "--record", pointer[1]]);
    prompt = String((brief.data as { prompt: string }).prompt);
  }
  const rt = readRuntime(prompt);
  await beat(rt, 5, "intake", "read the runtime arguments");
  await peaks(rt.projectRoot, ["sub-agent", "shared-read", "--batch", rt.batchId]);
  await pause();
  await beat(rt, 30, "analyzing", "reading the PRD and the project scan");
  await pause();
  await beat(rt, 60, "writing", `writing the ${rt.role} artefacts`);
  const session = join(rt.projectRoot, ".peaks", "_runtime", rt.sessionId);
  const written = await roleWork(rt, session, (args) => peaks(rt.projectRoot, args));
  await pause();
  const metas = [];
  for (const file of written.artefacts) {
    const registered = await peaks(rt.projectRoot, [
      "sub-agent",
      "artifact",
      "--record",
      rt.record,
      "--path",
      file.path,
      "--summary",
      file.summary,
    ]);
    const meta = (registered.data as { artifact?: unknown })?.artifact;
    metas.push(meta ?? { path: file.path });
  }
  await beat(rt, 90, "finalizing", "posting completion on the shared channel");
  await peaks(rt.projectRoot, [
    "sub-agent",
    "share",
    "--batch",
    rt.batchId,
    "--key",
    `${rt.role}.completed`,
    "--value",
    JSON.stringify(written.artefacts.map((a) => a.path)),
    "--from",
    rt.role,
  ]);
  await beat(rt, 100, "finalizing", "completed", "done");
  const result = {
    role: rt.role,
    rid: rt.requestId,
    status: written.status,
    // Every file it wrote, the product code included (the return contract).
    artefacts: [...written.artefacts.map((a) => a.path), ...(written.product ?? [])],
    warnings: [],
    blockedReason: null,
    reason: written.reason ?? null,
    diffSummary: written.diffSummary,
    ...(written.verdict ? { verdict: written.verdict } : {}),
  };
  console.log(JSON.stringify(result));
}

if (import.meta.main) {
  try {
    await main();
  } catch (error) {
    console.error(`stand-in agent: ${error instanceof Error ? error.message : error}`);
    Deno.exit(1);
  }
}
