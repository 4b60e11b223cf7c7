/**
 * The swarm plan (`.peaks/_runtime/<sid>/sc/swarm-plan-<rid>.json`, one per request): which
 * sub-agents `swarm plan` decided to launch for a request and why, the batch
 * and DAG they go out in, and, once `swarm converge` ran, each member's final
 * status and the degradation outcome. Dispatch reads two of its booleans for
 * the runtime arguments; SC and TXT read it to audit what was launched.
 */
import type { Project } from "../workspace/project.ts";
import { readValidated, updateJson } from "../infra/fs/json.ts";
import { commandLine } from "../infra/shell.ts";
import { loadSchemas, stateSchema } from "../infra/shape/lazy.ts";
import { SWARM_PLAN_SHAPE } from "../state/shapes.ts";
import type { SwarmPlan } from "../state/swarm_plan.ts";

export {
  SWARM_CHOICES,
  SWARM_OUTCOMES,
  SWARM_PLAN_VERSION,
  SWARM_ROLES,
  type SwarmChoice,
  type SwarmOutcome,
  type SwarmRole,
} from "../state/swarm_plan.ts";
export type { Convergence, MemberResult, SwarmPlan } from "../state/swarm_plan.ts";

/** The plan, checked by its shape (zod only for what the shape doubts). */
const SwarmPlanFile = stateSchema<SwarmPlan>(
  SWARM_PLAN_SHAPE,
  () =>
    import("../state/swarm_plan.ts").then((m) => loadSchemas(m.swarmPlanSchemas)).then((s) =>
      s.SwarmPlanSchema
    ),
);

/** A broken plan is moved aside (bytes kept); `swarm plan` then writes a fresh one. */
function readOptions(project: Project, sid: string, rid: string) {
  const path = project.layout.swarmPlan(sid, rid);
  return { what: "swarm plan", repair: [commandLine(["mv", path, `${path}.corrupt`])] };
}

export function readSwarmPlan(
  project: Project,
  sid: string,
  rid: string,
): Promise<SwarmPlan | undefined> {
  return readValidated(
    project.layout.swarmPlan(sid, rid),
    SwarmPlanFile,
    readOptions(project, sid, rid),
  );
}

/** Replaces or edits the plan under its lock; `change` returns no value to leave it. */
export function updateSwarmPlan<R>(
  project: Project,
  sid: string,
  rid: string,
  change: (
    current: SwarmPlan | undefined,
  ) => Promise<{ value?: SwarmPlan; result: R }> | { value?: SwarmPlan; result: R },
): Promise<R> {
  return updateJson(
    project.layout.swarmPlan(sid, rid),
    SwarmPlanFile,
    readOptions(project, sid, rid),
    change,
  );
}
