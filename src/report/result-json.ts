/**
 * The machine-readable result of a mission (README, "naruto run --json"): what `naruto run --json` and
 * `naruto status ID --json` print. A contract: exactly these keys, no more, so that tools can
 * rely on it; new facts go in the markdown report, or in a new versioned contract. `sandbox`
 * (docs/architecture.md) was added to it: what agents ran in, `bwrap 0.8.0` or `none (why)`.
 */
import type { Mission, MissionItem, VerdictKind } from "../mission/index.ts";

export interface MissionResultItem {
  readonly id: string;
  readonly status: MissionItem["status"];
  /** Attempts made, counted or not against `max_attempts`. */
  readonly attempts: number;
  /** The item's commit on the queue; null until integrated (and for a read-only item). */
  readonly commit: string | null;
  readonly changed: readonly string[];
  /** Why the item is not integrated (the failure, the failed dependency, the cancel). */
  readonly reason: string | null;
}

export interface MissionResult {
  readonly mission: string;
  readonly status: Mission["status"];
  /** The arbiter's verdict; null until the review. */
  readonly verdict: VerdictKind | null;
  readonly queue: { readonly branch: string; readonly head: string; readonly verify_runs: number };
  readonly items: readonly MissionResultItem[];
  /** What agents, the planner, the review and verify commands ran in; null when not recorded. */
  readonly sandbox: string | null;
}

/**
 * The result object of a mission. Every value is copied, so the result can be serialized or
 * changed without touching the mission.
 *
 * @example JSON.stringify(missionResult(mission))
 * // {"mission":"m-1a2b3c","status":"done","verdict":"approve","queue":{…},"items":[…]}
 */
export function missionResult(mission: Mission): MissionResult {
  return {
    mission: mission.id,
    status: mission.status,
    verdict: mission.verdict?.verdict ?? null,
    queue: { branch: mission.queue.branch, head: mission.queue.head, verify_runs: mission.queue.verify_runs },
    items: mission.items.map((i) => ({
      id: i.id,
      status: i.status,
      attempts: i.attempts.length,
      commit: i.commit,
      changed: [...i.changed],
      reason: i.status === "integrated" ? null : i.reason,
    })),
    sandbox: mission.sandbox,
  };
}
