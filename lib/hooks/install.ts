/**
 * `peaks hooks install|uninstall|status`: peaks' entries in a host's hook settings. Ours are the
 * hooks whose command starts with `peaks hooks run`; other hooks, other keys and (outside the
 * `hooks` value) every byte of the file are kept. Install is idempotent; uninstall removes ours only.
 */
import { flag } from "../infra/command/flag.ts";
import type { CommandResult } from "../infra/command/spec.ts";
import type { Ctx } from "../infra/command/ctx.ts";
import { PeaksError } from "../infra/errors.ts";
import { assertNotSymlink, guardPath } from "../infra/fs/guard.ts";
import { dirname, join } from "../infra/std.ts";
import { resolveProject } from "../workspace/project.ts";
import { changeTopLevel, readSettings, REMOVED_NOTE, saveSettings } from "../settings/settings.ts";
import {
  HOOK_HOST_FACTS,
  HOOK_HOSTS,
  HOOK_TIMEOUT_SEC,
  hookCommand,
  type HookHost,
  type HookScope,
} from "./hosts.ts";

export const hooksFlags = {
  host: flag.enum(HOOK_HOSTS, "The host whose hook settings to edit.", { default: "claude-code" }),
  scope: flag.enum(
    ["local", "project", "user"],
    "Which settings: local (Claude Code's .claude/settings.local.json, yours only), project (the " +
      "project's shared settings) or user (every project). Default: local for Claude Code, project otherwise.",
  ),
  "dry-run": flag.boolean("Report what would change; write nothing."),
};

type Flags = { host: HookHost; scope?: HookScope; "dry-run": boolean };
type Json = Record<string, unknown>;

/** Exactly a command `hookCommand` writes; one that merely starts with it is the user's own. */
const OURS = /^peaks hooks run --host [a-z-]+ --event [A-Za-z]+$/;

function isOurs(hook: unknown): boolean {
  const h = hook as Json | null;
  const command = h && typeof h === "object" ? h.command ?? h.bash : undefined;
  return typeof command === "string" && OURS.test(command);
}

async function hooksPath(ctx: Ctx, host: HookHost, scope: HookScope) {
  const file = HOOK_HOST_FACTS[host].files[scope];
  if (!file) {
    throw new PeaksError(
      "SCOPE_NOT_SUPPORTED",
      `${host} has no ${scope} hook settings; use --scope ${
        Object.keys(HOOK_HOST_FACTS[host].files).join(" or --scope ")
      }.`,
      { data: { host, scope } },
    );
  }
  if (file.startsWith("~/")) {
    const codexHome = host === "codex" ? ctx.env.get("CODEX_HOME") : undefined;
    const home = ctx.env.get("HOME") || ctx.env.get("USERPROFILE");
    if (codexHome) return { path: join(codexHome, "hooks.json"), root: null };
    if (!home) throw new PeaksError("HOME_NOT_SET", "Neither HOME nor USERPROFILE is set.");
    return { path: join(home, file.slice(2)), root: null };
  }
  const project = await resolveProject(ctx);
  return {
    path: await guardPath(project.root, project.root, file, { flag: "scope" }),
    root: project.root,
  };
}

/** One hook entry as the host reads it. */
function entry(host: HookHost, event: string): Json {
  const facts = HOOK_HOST_FACTS[host];
  const timeout = facts.timeoutUnit === "ms" ? HOOK_TIMEOUT_SEC * 1000 : HOOK_TIMEOUT_SEC;
  return facts.dialect === "copilot"
    ? { type: "command", bash: hookCommand(host, event), timeoutSec: timeout }
    : { type: "command", command: hookCommand(host, event), timeout };
}

/** The host's `hooks` value without ours (empty groups and events dropped). */
function withoutOurs(host: HookHost, hooks: Json): Json {
  const out: Json = {};
  for (const [event, list] of Object.entries(hooks)) {
    if (!Array.isArray(list)) {
      out[event] = list;
      continue;
    }
    const kept = HOOK_HOST_FACTS[host].dialect === "copilot"
      ? list.filter((hook) => !isOurs(hook))
      : list.flatMap((group) => {
        const g = group as Json;
        if (!g || typeof g !== "object" || !Array.isArray(g.hooks)) return [group];
        const rest = g.hooks.filter((hook) => !isOurs(hook));
        return rest.length === 0 ? [] : [{ ...g, hooks: rest }];
      });
    if (kept.length) out[event] = kept;
  }
  return out;
}

/** The host's `hooks` value with ours, each event once. */
export function withOurs(host: HookHost, hooks: Json): Json {
  const out = withoutOurs(host, hooks);
  const copilot = HOOK_HOST_FACTS[host].dialect === "copilot";
  for (const { event, matcher } of HOOK_HOST_FACTS[host].events) {
    const list = Array.isArray(out[event]) ? out[event] as unknown[] : [];
    const ours = copilot
      ? entry(host, event)
      : { ...(matcher ? { matcher } : {}), hooks: [entry(host, event)] };
    out[event] = [...list, ours];
  }
  return out;
}

/** Which of peaks' events are installed as this version writes them. */
export function installedEvents(host: HookHost, hooks: Json): string[] {
  const wanted = withOurs(host, {});
  return Object.keys(wanted).filter((event) => {
    const list = hooks[event];
    return Array.isArray(list) &&
      list.some((item) => JSON.stringify(item) === JSON.stringify((wanted[event] as unknown[])[0]));
  });
}

function hooksValue(value: unknown, path: string): Json {
  if (value === undefined) return {};
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    throw new PeaksError(
      "SETTINGS_INVALID",
      `${path}: "hooks" must be an object; peaks will not rewrite it.`,
      {
        data: { path },
      },
    );
  }
  return value as Json;
}

export async function editHooks(
  ctx: Ctx,
  flags: Flags,
  action: "install" | "uninstall" | "status",
): Promise<CommandResult> {
  const host = flags.host;
  const scope = flags.scope ?? (host === "claude-code" ? "local" : "project");
  const { path, root } = await hooksPath(ctx, host, scope);
  await assertNotSymlink(path, "the host's hook settings file");
  const document = await readSettings(path);
  const current = hooksValue(document.get("hooks"), path);
  const all = HOOK_HOST_FACTS[host].events.map((e) => e.event);
  const before = installedEvents(host, current);
  let next: string | undefined;
  if (action !== "status") {
    const value = action === "install" ? withOurs(host, current) : withoutOurs(host, current);
    const same = JSON.stringify(value) === JSON.stringify(current);
    if (!same) {
      const copilot = HOOK_HOST_FACTS[host].dialect === "copilot";
      next = copilot && document.text === undefined
        ? `${JSON.stringify({ version: 1, hooks: value }, null, 2)}\n`
        : changeTopLevel(document, "hooks", Object.keys(value).length ? value : undefined);
    }
  }
  const changed = next !== undefined && next !== document.text;
  let saved = "";
  if (changed && !flags["dry-run"]) {
    await Deno.mkdir(dirname(path), { recursive: true });
    // Copilot's file starts as { version: 1 } when peaks creates it; that alone is empty too.
    const leftover = HOOK_HOST_FACTS[host].dialect === "copilot" ? { version: 1 } : {};
    saved = await saveSettings(path, next!, {
      uninstall: action === "uninstall",
      leftover,
      encode: (text) => document.encode(text),
    });
  }
  const outcome = action === "status"
    ? before.length === all.length ? "installed" : before.length ? "partial" : "absent"
    : !changed
    ? "unchanged"
    : flags["dry-run"]
    ? `would-be-${action}ed`
    : `${action}ed`;
  const note = HOOK_HOST_FACTS[host].note;
  return {
    data: {
      ...(root ? { projectRoot: root } : {}),
      host,
      scope,
      settingsPath: path,
      action: outcome,
      events: action === "status" ? before : all,
      changed: changed && !flags["dry-run"],
      dryRun: flags["dry-run"],
      ...(note && action !== "uninstall" ? { note } : {}),
      ...(saved === "removed" ? { fileRemoved: true } : {}),
    },
    human: `${path}: peaks hooks ${outcome}${saved === "removed" ? REMOVED_NOTE : ""}${
      note && action === "install" ? `\nnote: ${note}` : ""
    }`,
  };
}
