/** The dispatch flags of detached mode, declared once; loaded by every dispatch, so kept tiny. */
import { flag } from "../infra/command/flag.ts";
import { usageError } from "../infra/errors.ts";
import { VENDORS } from "../hosts/vendors.ts";
import { VENDOR_PERMISSIONS } from "../state/preferences.ts";

export const DEFAULT_TIMEOUT_MS = 60 * 60_000;
export const DEFAULT_MAX_CONCURRENT = 8;

export const detachedFlags = {
  mode: flag.enum(
    ["in-process", "detached"],
    "in-process: return the IDE tool call; detached: start a vendor CLI under a peaks supervisor.",
    { default: "in-process" },
  ),
  vendor: flag.enum(
    VENDORS,
    "Detached: the vendor CLI to run (default: the host's own when installed, else the first installed).",
  ),
  timeout: flag.duration("Detached: stop the vendor after this long (outcome timeout).", {
    min: 1_000,
    max: 86_400_000,
    default: DEFAULT_TIMEOUT_MS,
  }),
  "max-concurrent": flag.int("Detached: live detached sub-agents allowed in the project.", {
    min: 1,
    max: 256,
    default: DEFAULT_MAX_CONCURRENT,
  }),
  "no-throttle": flag.boolean("Detached: start even past --max-concurrent (with a warning)."),
  "vendor-permissions": flag.enum(
    VENDOR_PERMISSIONS,
    "Detached: what the vendor may do. role: edit inside the project and run peaks; read-only: read and " +
      "run peaks; full: whatever the vendor allows without asking (see docs/detached.md for the risk). " +
      "Default: the detached.vendorPermissions preference, else role.",
  ),
};

const ONLY_DETACHED = ["vendor", "timeout", "max-concurrent", "no-throttle", "vendor-permissions"];

/** --vendor and friends mean nothing in-process; saying so beats ignoring them. */
export function assertDetachedFlags(mode: string, given: ReadonlySet<string>): void {
  if (mode === "detached") return;
  const stray = ONLY_DETACHED.filter((name) => given.has(name));
  if (stray.length === 0) return;
  throw usageError(
    "CONFLICTING_FLAGS",
    `${stray.map((n) => `--${n}`).join(", ")} apply only with --mode detached.`,
    { data: { flags: stray, flag: stray[0] } },
  );
}
