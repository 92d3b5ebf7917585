/**
 * The publish job's pushes of what the legs left (checkpoints to their worker branches, kept work
 * to theirs), made before the events that name them are recorded: the state never names a commit
 * GitHub does not have. A push GitHub refuses fails that attempt with GitHub's words instead of
 * failing the job, which would leave it in flight until the sweep.
 *
 * One refusal is not the attempt's doing: GitHub lets a token without the `workflows` permission
 * (a job's `GITHUB_TOKEN`, naruto's App) create no branch whose `.github/workflows/` differs from
 * the default branch's. When the default branch changes a workflow file during a mission, every
 * new worker branch, built on the mission's base, is refused; so is moving the queue onto the new
 * default branch (`refresh`). The attempt then fails without a retry and the mission stops (the
 * `stopped` event): nothing new starts only to be refused, and what is integrated is reviewed.
 */
import type { Git } from "../../git/index.ts";
import { WorkflowPermissionError } from "../../github/index.ts";
import type { Mission, MissionEvent } from "../../mission/index.ts";
import type { ModeDeps } from "../deps.ts";
import { pushRef } from "../remote.ts";
import type { BranchPush } from "./work-events.ts";

/** A worker branch GitHub refused because the default branch's workflow files moved away from the mission's base. */
export interface WorkflowStop {
  readonly branch: string;
  readonly path: string;
}

type Finished = Extract<MissionEvent, { type: "attempt_finished" }>;

/**
 * Pushes `pushes` and returns `events` with the refused attempts' outcomes changed, plus the
 * `stopped` event (last, so that the refused attempts end first) when the default branch's
 * workflow change was the cause.
 */
export async function pushLegs(input: {
  readonly deps: ModeDeps;
  readonly mission: Mission;
  readonly pushes: readonly BranchPush[];
  readonly events: readonly MissionEvent[];
  readonly at: string;
}): Promise<{ events: MissionEvent[]; stop: WorkflowStop | null }> {
  const { deps, mission } = input;
  const { git, workspace: repoDir, remote, log } = deps;
  let events = [...input.events];
  let stop: WorkflowStop | null = null;
  for (const p of input.pushes) {
    try {
      await pushRef(git, repoDir, remote, { commit: p.commit, ref: p.ref, force: true });
      log.info(`${p.item}#${p.attempt}: ${p.kind === "checkpoint" ? "checkpoint" : "partial work"} ${p.commit.slice(0, 12)} pushed to ${p.ref}`);
    } catch (error) {
      const branch = p.ref.replace(/^refs\/heads\//, "");
      const baseMoved = error instanceof WorkflowPermissionError && (await sameWorkflows(git, repoDir, p.commit, mission.base.commit));
      const why = baseMoved
        ? `GitHub refused to create the branch ${branch}: the default branch's workflow file ${error.path} changed since the mission's base, and naruto's token has no workflows permission`
        : `GitHub refused the push of ${p.ref}: ${lastLines(error instanceof Error ? error.message : String(error))}`;
      log.warning(`${p.item}#${p.attempt}: ${why}`);
      if (baseMoved) stop ??= { branch, path: error.path };
      events = events.map((e) => (e.type === "attempt_finished" && e.item === p.item && e.attempt === p.attempt ? refusedPush(e, p, why, baseMoved) : e));
    }
  }
  if (stop !== null) events.push({ type: "stopped", at: input.at, reason: stopReason(mission, stop) });
  return { events, stop };
}

/** The mission's reason once it stopped (the tracking comment shows it; the reply says more). */
export function stopReason(mission: Mission, stop: WorkflowStop): string {
  return `stopped: GitHub refuses every new branch of this mission, because the default branch changed its workflow file ${stop.path} after the mission's base ${mission.base.commit.slice(0, 12)}, and naruto's token has no workflows permission`;
}

/**
 * Whether `commit` holds the same `.github/workflows/` as `base` (both without one counts): a
 * refusal of such a commit is the default branch's doing, not the attempt's.
 */
async function sameWorkflows(git: Git, repoDir: string, commit: string, base: string): Promise<boolean> {
  const tree = async (c: string) => {
    const out = await git({ args: ["rev-parse", "--verify", "--quiet", `${c}:.github/workflows`], cwd: repoDir, okCodes: [1, 128] });
    return out.code === 0 ? out.stdout.toString("utf8").trim() : null;
  };
  return (await tree(commit)) === (await tree(base));
}

/**
 * The attempt's event once GitHub refused its push: a checkpoint fails (for good when the next
 * attempt's push would be refused the same way); kept work is said not kept.
 */
function refusedPush(event: Finished, push: BranchPush, why: string, forGood: boolean): MissionEvent {
  const reason = `the checkpoint could not be pushed: ${why}`;
  if (push.kind === "checkpoint")
    return { ...event, outcome: forGood ? { kind: "permanent", cause: "refused", reason, work: null } : { kind: "failed", reason } };
  const o = event.outcome;
  if (o.kind !== "failed" && o.kind !== "timed_out" && o.kind !== "permanent") return event;
  return { ...event, outcome: { ...o, work: { kind: "not_kept", why } } };
}

function lastLines(text: string): string {
  return text.trim().split("\n").slice(-3).join(" ").slice(0, 500);
}
