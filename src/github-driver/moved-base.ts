/**
 * A mission that ends on a base that moved (issue 37). A push to the base branch while the
 * mission runs or is reviewed refreshes nothing (refresh-on-push.ts: its queue is still moving),
 * and no push may come after the end: without this, the result would stay on the old base in
 * silence. So when a mission ends, its publish job reads the base branch's head once; when it is
 * no longer the mission's base, it records `base_moved` (the comments say so and name
 * `/naruto refresh`) and, when the config on that branch says `queue.refresh: on_push`, asks for
 * the refresh exactly as a push would: the same lease (a burst, a redelivery or a refresh already
 * under way dispatches nothing more) and the same run.
 */
import { applyEvent, IllegalEventError, type Mission } from "../mission/index.ts";
import type { DriverDeps } from "./deps.ts";
import { message } from "./publish.ts";
import { requestRefresh, type RefreshRequest } from "./refresh.ts";
import { readConfigAt } from "./settings.ts";

export type BaseCatchUp =
  | { readonly kind: "unmoved" }
  /** Recorded only: `queue.refresh` is `manual`, or the config there cannot be read. */
  | { readonly kind: "recorded"; readonly mission: Mission; readonly why: string }
  | { readonly kind: "refresh"; readonly mission: Mission; readonly request: RefreshRequest };

/**
 * For a mission that just ended (`done`): records a base branch that moved past its base and,
 * with `queue.refresh: on_push`, asks for the refresh. Never throws: the mission's end stands;
 * what could not be done is logged, and the next push or `/naruto refresh` still can.
 */
export async function catchUpBase(deps: DriverDeps & { readonly configPath: string }, mission: Mission): Promise<BaseCatchUp> {
  // An empty queue (nothing integrated) stands on nothing: there is nothing to replay.
  if (mission.kind !== "run" || mission.status !== "done" || mission.queue.head === mission.base.commit) return { kind: "unmoved" };
  try {
    const tip = await deps.github.getRef(`refs/heads/${mission.base.ref}`);
    if (tip === null || tip === mission.base.commit) return { kind: "unmoved" };
    const recorded = (await applyEvent(deps.store, mission.id, { type: "base_moved", at: deps.now().toISOString(), commit: tip })).mission;
    // The config as it is on the branch now, as for a push: the one a refreshed queue stands on.
    const loaded = await readConfigAt(deps.github, deps.configPath, tip);
    const mode = loaded.ok ? loaded.config.queue.refresh : null;
    if (mode !== "on_push") {
      const why = mode === null ? `${deps.configPath} at ${tip.slice(0, 12)} is not valid` : `queue.refresh is ${mode}`;
      deps.log.info(
        `mission ${mission.id} ended on ${mission.base.commit.slice(0, 12)}; ${mission.base.ref} is at ${tip.slice(0, 12)} (${why}: not refreshed)`,
      );
      return { kind: "recorded", mission: recorded, why };
    }
    const request = await requestRefresh(deps, recorded, { handover: false });
    deps.log.info(`mission ${mission.id} ended on a base that moved: ${request.message}`);
    const stored = (await deps.store.load(mission.id))?.mission ?? recorded;
    return { kind: "refresh", mission: stored, request };
  } catch (error) {
    // Another writer decided first (a refresh landed, the mission moved on): its state stands.
    const why = message(error);
    if (error instanceof IllegalEventError) deps.log.info(`base of ${mission.id} not recorded: ${why}`);
    else deps.log.warning(`could not check whether the base of ${mission.id} moved, or ask for its refresh: ${why}`);
    const stored = (await deps.store.load(mission.id).catch(() => null))?.mission ?? mission;
    return { kind: "recorded", mission: stored, why };
  }
}
