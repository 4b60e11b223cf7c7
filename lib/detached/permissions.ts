/**
 * The permission posture of a detached run: `--vendor-permissions`, else the
 * project's `detached.vendorPermissions` preference, else `role`.
 */
import { readPreferences } from "../preferences/preferences.ts";
import type { Project } from "../workspace/project.ts";
import {
  DEFAULT_VENDOR_PERMISSIONS,
  VENDOR_PERMISSIONS,
  type VendorPermissions,
} from "../state/preferences.ts";

export async function vendorPermissions(
  project: Project,
  flag: string | undefined,
): Promise<VendorPermissions> {
  if (flag && (VENDOR_PERMISSIONS as readonly string[]).includes(flag)) {
    return flag as VendorPermissions;
  }
  const preferences = await readPreferences(project);
  return preferences.detached?.vendorPermissions ?? DEFAULT_VENDOR_PERMISSIONS;
}
