/**
 * The program itself: version, Deno, compiled or not, how it starts itself,
 * and the permissions this process holds, asked of the runtime for the
 * kinds peaks uses (never assumed from deno.json). A question the runtime
 * refuses to answer is reported as unknown, never a crash.
 */
import { isCompiled, VERSION } from "../infra/command/build.ts";
import { findOnPath, VENDORS } from "../hosts/vendors.ts";
import { HOSTS } from "../hosts/registry.ts";
import type { Check, CheckOutcome, Finding } from "./model.ts";

/** Variables peaks reads (a sample of the PEAKS_* and IDE families). */
const ENV_NAMES = [
  "HOME",
  "USERPROFILE",
  "PATH",
  "PATHEXT",
  "PEAKS_SESSION_ID",
  "PEAKS_SKILLS_DIR",
  "HEADROOM_BASE_URL",
  // Each host's first detection variable.
  ...HOSTS.flatMap((h) => h.envVars.slice(0, 1)),
];
const NET_HOSTS = ["127.0.0.1", "localhost", "[::1]"];
const RUN_NAMES = ["git", ...VENDORS, "peaks", "deno"];
/** Kinds the release binary holds only scoped (or not at all). */
const SCOPED_KINDS = ["run", "net", "env", "sys", "ffi"] as const;

type Answer = "granted" | "not-granted" | "unknown";

function ask(descriptor: Deno.PermissionDescriptor): Answer {
  try {
    return Deno.permissions.querySync(descriptor).state === "granted" ? "granted" : "not-granted";
  } catch {
    return "unknown";
  }
}

function split<T extends string>(names: T[], answer: (name: T) => Answer) {
  const out: Record<Answer, string[]> = { granted: [], "not-granted": [], unknown: [] };
  for (const name of names) out[answer(name)].push(name);
  return { granted: out.granted, notGranted: out["not-granted"], unknown: out.unknown };
}

export async function permissionFacts(
  root: string,
  env: { get(name: string): string | undefined },
) {
  const onPath = await Promise.all(RUN_NAMES.map((name) => findOnPath(name, env)));
  return {
    read: ask({ name: "read", path: root }),
    write: ask({ name: "write", path: root }),
    env: split(ENV_NAMES, (variable) => ask({ name: "env", variable })),
    net: split(NET_HOSTS, (host) => ask({ name: "net", host })),
    run: {
      ...split(RUN_NAMES, (command) => ask({ name: "run", command })),
      onPath: RUN_NAMES.filter((_, i) => onPath[i] !== undefined),
    },
    unscoped: SCOPED_KINDS.filter((name) => ask({ name }) === "granted"),
  };
}

/**
 * A compiled binary may start its supervisor only as the `peaks` on PATH
 * (lib/cli/runtime.ts); when that is another file, detached mode cannot start.
 */
export function selfFinding(
  compiled: boolean,
  selfCommand: string[],
  execPath: string,
): Omit<Finding, "check"> | undefined {
  if (!compiled || selfCommand[0] === "peaks") return undefined;
  return {
    id: "runtime.self-not-on-path",
    severity: "warning",
    title: "This binary is not the peaks on PATH",
    detail:
      `Detached sub-agents start their supervisor as \`peaks\`, which must be this very file (${execPath}); they fail with SUPERVISOR_START_FAILED until it is. Put this binary's folder first on PATH, or run the installed peaks.`,
    fix: null,
  };
}

export const runtimeCheck: Check = {
  name: "runtime",
  async run({ ctx, project }) {
    const compiled = isCompiled();
    const permissions = await permissionFacts(project.root, ctx.env);
    const selfCommand = ctx.selfCommand();
    const outcome: CheckOutcome = {
      summary: `peaks ${VERSION}, deno ${Deno.version.deno}, ${compiled ? "compiled" : "deno run"}`,
      findings: [],
      facts: {
        version: VERSION,
        deno: Deno.version.deno,
        os: Deno.build.os,
        arch: Deno.build.arch,
        compiled,
        execPath: Deno.execPath(),
        selfCommand,
        permissions,
      },
    };
    if (!permissions.run.granted.includes("git") || !permissions.run.onPath.includes("git")) {
      outcome.findings.push({
        id: "runtime.git-unavailable",
        severity: "info",
        title: "git cannot be run",
        detail:
          "Without git, dispatch records no gitHead, finalize cannot list commits made by sub-agents, and doctor cannot tell stray root files from the project's own. Install git and put it on PATH.",
        fix: null,
      });
    }
    if (permissions.unscoped.length) {
      outcome.findings.push({
        id: "runtime.broad-permissions",
        severity: "info",
        title: `This process holds unscoped ${permissions.unscoped.join(", ")} permission(s)`,
        detail:
          "The release binary carries only the scoped set from deno.json (deno task peaks runs with it too); a run with -A or --allow-all is not what users get.",
        fix: null,
      });
    }
    const self = selfFinding(compiled, selfCommand, Deno.execPath());
    if (self) outcome.findings.push(self);
    return outcome;
  },
};
