/**
 * What a detached record carries, for a single dispatch and for each node of
 * a DAG wave alike: its run folder, its detached prompt and its `detached`
 * fields (vendor, input, timeout, owner, permission posture, and the model
 * and effort the vendor's command line carries).
 */
import { runNameFor } from "../record/names.ts";
import type { Vendor } from "../hosts/vendors.ts";
import type { VendorPermissions } from "../state/preferences.ts";
import { displayPath } from "../workspace/paths.ts";
import type { Project } from "../workspace/project.ts";
import { composeDetachedPrompt } from "../dispatch/instructions.ts";
import type { DetachedPlan } from "../dispatch/new_record.ts";
import type { RuntimeArgs } from "../dispatch/runtime_args.ts";
import type { DetachedDispatchFlags } from "./input.ts";
import { VENDOR_CLI } from "./vendor_cli.ts";
import type { PassedTuning } from "./tuning.ts";

/** The run folder of a record file. */
export function runDirFor(project: Project, runtime: RuntimeArgs, file: string): string {
  const { sessionId, requestId } = runtime;
  return project.layout.detachedRunDir(sessionId, requestId, runNameFor(file, requestId));
}

export function detachedPlan(
  project: Project,
  runtime: RuntimeArgs,
  vendor: Vendor,
  flags: DetachedDispatchFlags,
  who: { callerId: string | null; permissions: VendorPermissions; tuning?: PassedTuning },
): DetachedPlan {
  const { callerId, permissions, tuning } = who;
  const shownRunDir = (file: string) =>
    displayPath(project.root, runDirFor(project, runtime, file));
  return {
    vendor,
    compose: (recordPath, file, task) =>
      composeDetachedPrompt(
        { runtime, recordPath, runDir: shownRunDir(file), vendor, permissions },
        task,
      ),
    fields: (file) => ({
      detached: {
        runDir: shownRunDir(file),
        vendor,
        requestedVendor: flags.vendor ?? null,
        input: VENDOR_CLI[vendor].input,
        timeoutMs: flags.timeout,
        owner: { sessionId: runtime.sessionId, callerId },
        permissions,
        ...tuning,
      },
    }),
  };
}
