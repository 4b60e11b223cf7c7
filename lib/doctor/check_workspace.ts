/**
 * The workspace itself: `.peaks/` with `_runtime/`, a bound session whose
 * metadata reads back, and the managed block of `.peaks/.gitignore` exactly
 * as `workspace init` writes it.
 */
import { isNotFound, PeaksError } from "../infra/errors.ts";
import { isValidId } from "../infra/ids.ts";
import { displayPath } from "../workspace/paths.ts";
import type { Project } from "../workspace/project.ts";
import { quarantineCommand } from "../record/names.ts";
import { initCommand, readBinding, readSessionMeta } from "../session/session.ts";
import { GITIGNORE_BEGIN, withGitignoreBlock } from "../workspace/skeleton.ts";
import type { Check, CheckInput, CheckOutcome } from "./model.ts";

type Kind = "dir" | "file" | "symlink" | "other" | "missing";

async function kindOf(path: string): Promise<Kind> {
  try {
    const info = await Deno.lstat(path);
    return info.isSymlink ? "symlink" : info.isDirectory ? "dir" : info.isFile ? "file" : "other";
  } catch (error) {
    if (isNotFound(error) || error instanceof Deno.errors.NotADirectory) return "missing";
    throw error;
  }
}

function unreadableFinding(project: Project, path: string, what: string, error: PeaksError) {
  return {
    id: "workspace.unreadable",
    severity: "error" as const,
    title: `The ${what} is unreadable`,
    detail: `${error.message} Moving it aside keeps its bytes for inspection; then run ${
      initCommand(project)
    } to bind a session again.`,
    fix: quarantineCommand(path),
    paths: [displayPath(project.root, path)],
  };
}

async function checkSession(input: CheckInput): Promise<CheckOutcome> {
  const { project, ctx } = input;
  const init = initCommand(project);
  const bindingPath = project.layout.sessionBinding;
  let sessionId = ctx.env.get("PEAKS_SESSION_ID") || undefined;
  const fromEnv = sessionId !== undefined;
  const origin = fromEnv ? "PEAKS_SESSION_ID" : "the session binding";
  if (!sessionId) {
    try {
      sessionId = (await readBinding(project))?.sessionId;
    } catch (error) {
      if (!(error instanceof PeaksError)) throw error;
      return {
        summary: "session binding unreadable",
        findings: [unreadableFinding(project, bindingPath, "session binding", error)],
      };
    }
  }
  if (!sessionId) {
    return {
      summary: "no session bound",
      findings: [{
        id: "workspace.no-session",
        severity: "warning",
        title: "No session is bound",
        detail: `${
          displayPath(project.root, bindingPath)
        } is missing, so every session command answers NO_ACTIVE_SESSION.`,
        fix: init,
      }],
    };
  }
  if (!isValidId(sessionId)) {
    return {
      summary: "session id invalid",
      findings: [{
        id: "workspace.session-invalid",
        severity: "error",
        title: `The session id from ${origin} is not a valid identifier`,
        detail: fromEnv
          ? "Unset PEAKS_SESSION_ID or set it to an existing session id."
          : `Move the binding aside and bind a session again with ${init}.`,
        fix: fromEnv ? null : quarantineCommand(bindingPath),
      }],
    };
  }
  const metaPath = project.layout.sessionMeta(sessionId);
  try {
    if (await readSessionMeta(project, sessionId)) {
      return { summary: `session ${sessionId} (from ${origin})`, findings: [] };
    }
  } catch (error) {
    if (!(error instanceof PeaksError)) throw error;
    return {
      summary: `session ${sessionId} unreadable`,
      findings: [unreadableFinding(project, metaPath, "session metadata", error)],
    };
  }
  return {
    summary: `session ${sessionId} missing`,
    findings: [{
      id: "workspace.session-missing",
      severity: "warning",
      title: `Session ${sessionId} (from ${origin}) has no metadata`,
      detail: `${
        displayPath(project.root, metaPath)
      } is missing; session commands answer SESSION_NOT_FOUND. Recreating it keeps the session's records.`,
      fix: `${init} --session-id ${sessionId}`,
      paths: [displayPath(project.root, metaPath)],
    }],
  };
}

export const workspaceCheck: Check = {
  name: "workspace",
  async run(input) {
    const { project } = input;
    const peaks = await kindOf(project.layout.peaks);
    if (peaks === "symlink" || (peaks !== "dir" && peaks !== "missing")) {
      return {
        summary: ".peaks is not a folder",
        findings: [{
          id: "workspace.invalid",
          severity: "error",
          title: ".peaks is not a real folder",
          detail:
            `${project.layout.peaks} is a ${peaks}; peaks keeps its state in a real folder and never writes through a symlink. Move it away, then run ${
              initCommand(project)
            }.`,
          fix: null,
          paths: [".peaks"],
        }],
      };
    }
    if (!input.workspace) {
      return {
        summary: "no workspace",
        findings: [{
          id: "workspace.missing",
          severity: "warning",
          title: "No peaks workspace in this project",
          detail: `${
            displayPath(project.root, project.layout.runtime)
          } is missing; sessions, requests and sub-agent records live there.`,
          fix: initCommand(project),
        }],
      };
    }
    return await checkSession(input);
  },
};

export const gitignoreCheck: Check = {
  name: "gitignore",
  async run({ project }) {
    const path = project.layout.gitignore;
    const shown = displayPath(project.root, path);
    if ((await kindOf(project.layout.peaks)) !== "dir") {
      return { skipped: "no .peaks folder", summary: "", findings: [] };
    }
    const kind = await kindOf(path);
    if (kind !== "file" && kind !== "missing") {
      return {
        summary: `${shown} is not a file`,
        findings: [{
          id: "gitignore.invalid",
          severity: "warning",
          title: `${shown} is not a regular file`,
          detail: `${shown} is a ${kind}. Move it away, then run ${
            initCommand(project)
          } to write the managed block.`,
          fix: null,
          paths: [shown],
        }],
      };
    }
    const current = kind === "missing" ? undefined : await Deno.readTextFile(path);
    if (current !== undefined && withGitignoreBlock(current) === current) {
      return { summary: `${shown} has the managed block`, findings: [] };
    }
    const [id, title] = current === undefined
      ? ["gitignore.missing", `${shown} is missing`]
      : !current.includes(GITIGNORE_BEGIN)
      ? ["gitignore.block-missing", `${shown} has no peaks managed block`]
      : ["gitignore.block-outdated", `${shown}'s managed block differs from what peaks writes`];
    return {
      summary: title,
      findings: [{
        id,
        severity: "warning",
        title,
        detail:
          "Without the block git sees run-time state (_runtime/, _sub_agents/, local preferences, lock files). Text outside the block is kept.",
        fix: initCommand(project),
        paths: [shown],
      }],
    };
  },
};
