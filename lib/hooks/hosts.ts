/**
 * The hosts peaks installs lifecycle hooks in, and their hook facts, read from each host's own
 * declaration (lib/hosts/<host>.ts `hooks`). Only these six files are loaded, not the registry:
 * `peaks hooks run` runs on every tool call and loads no more than it needs.
 */
import type { HookFacts } from "../hosts/host.ts";
import { host as claudeCode } from "../hosts/claude_code.ts";
import { host as codex } from "../hosts/codex.ts";
import { host as copilot } from "../hosts/copilot.ts";
import { host as gemini } from "../hosts/gemini.ts";
import { host as opencode } from "../hosts/opencode.ts";
import { host as qwen } from "../hosts/qwen.ts";

export type { HookEventSpec, HookScope } from "../hosts/host.ts";
export type HookHostFacts = HookFacts;

/** Hosts whose hooks live in settings files (`peaks hooks install|uninstall|status`). */
export const HOOK_HOSTS = ["claude-code", "qwen-code", "gemini", "codex", "copilot"] as const;
/** Hosts whose hooks only peaks' plugin module runs (extensions/<host>). */
export const PLUGIN_HOOK_HOSTS = ["opencode"] as const;
const ALL = [...HOOK_HOSTS, ...PLUGIN_HOOK_HOSTS] as const;
export type HookHost = (typeof ALL)[number];

/** The host declaration behind each `--host` of `peaks hooks` (Qwen Code's is `qwen`). */
export const HOOK_HOST_DECLS = {
  "claude-code": claudeCode,
  "qwen-code": qwen,
  gemini,
  codex,
  copilot,
  opencode,
} as const satisfies Record<HookHost, unknown>;

export const HOOK_HOST_FACTS = Object.fromEntries(
  ALL.map((id) => [id, HOOK_HOST_DECLS[id].hooks!]),
) as Record<HookHost, HookFacts>;

/** A host `peaks hooks run --host` answers for. */
export function isHookHost(value: string): value is HookHost {
  return (ALL as readonly string[]).includes(value);
}

/** Seconds peaks asks each hook to finish in (a hook past it is killed and the host goes on). */
export const HOOK_TIMEOUT_SEC = 10;

/** The command a host runs for one event. */
export function hookCommand(host: HookHost, event: string): string {
  return `peaks hooks run --host ${host} --event ${event}`;
}
