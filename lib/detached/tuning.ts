/**
 * The role's model and effort for a detached run: what the vendor CLI takes
 * (stored in the record's `detached` field, where the supervisor reads it
 * back to build the command line) and a PREFERENCE_NOT_PASSED warning for
 * each choice it cannot take, as in-process dispatch warns for a host tool.
 */
import type { Warning } from "../infra/errors.ts";
import type { Vendor } from "../hosts/vendors.ts";
import type { RoleTuning } from "../dispatch/role_tuning.ts";
import { TUNING_FLAGS } from "./vendor_cli.ts";

/** What the vendor's command line carries. */
export interface PassedTuning {
  model?: string;
  effort?: string;
}

export function vendorTuning(
  vendor: Vendor,
  tuning: RoleTuning | undefined,
): { passed: PassedTuning; warnings: Warning[] } {
  const passed: PassedTuning = {};
  const warnings: Warning[] = [];
  for (const what of ["model", "effort"] as const) {
    const chosen = tuning?.[what];
    if (!chosen) continue;
    const flag = TUNING_FLAGS[vendor][what];
    if (flag && (!flag.values || flag.values.includes(chosen.value))) {
      passed[what] = chosen.value;
      continue;
    }
    const why = flag
      ? `its ${flag.args(chosen.value)[0]} takes one of ${flag.values!.join(", ")}`
      : `it has no ${what} flag`;
    warnings.push({
      code: "PREFERENCE_NOT_PASSED",
      message: `${chosen.key} = ${
        JSON.stringify(chosen.value)
      } was not passed to the detached ${vendor}: ${why}.`,
      key: chosen.key,
      vendor,
    });
  }
  return { passed, warnings };
}
