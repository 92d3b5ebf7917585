/**
 * `publish` (write token): the one job that changes the repository and the mission state, and
 * the one that runs nothing of the repository (docs/architecture.md). It re-checks what this run's agent
 * jobs left (plan, work bundles, review) exactly as the queue job did, pushes the checked
 * checkpoints to their worker branches and records them, then takes the queue job's result only
 * as far as it can check it: it rebuilds the queue commits itself from the checked checkpoints
 * (the build is deterministic: same parents, trees, authors, committer line and messages),
 * replaying the queue job's record of `queue.verify` by candidate commit, and accepts the result
 * only if the queue job's commits are exactly those. Then it pushes the queue with
 * compare-and-swap, records the outcome, updates the pull request, comments and check runs, and
 * dispatches what became ready. Runs of one mission take turns (`concurrency: naruto-<mission>`
 * with `queue: max`).
 *
 * When the queue moved since the queue job read it (another run published first), nothing of
 * this run's queue is taken: its checkpoints stay waiting, and an integrate-only run builds them
 * anew. When the queue job's result is not what the checked checkpoints give, it is refused:
 * nothing of it is pushed, and the checkpoints fail with the reason (and are retried).
 */
import { join } from "node:path";
import type { Config } from "../../config/index.ts";
import type { Integrated } from "../../engine/index.ts";
import { queueRefName, readRef } from "../../queue/index.ts";
import { refUpdate, updateRefs } from "../../git/index.ts";
import { carryOut } from "../../github-driver/index.ts";
import { catchUpBase, ensureQueueBranch, issueOf, releaseRefresh, requestRefresh } from "../../github-driver/index.ts";
import { markerFor } from "../../github/index.ts";
import { publishRefresh, type PublishedRefresh } from "../integrate/refresh-run.ts";
import type { Mission } from "../../mission/index.ts";
import type { CheckpointOrder, MissionCommand, MissionEvent } from "../../mission/index.ts";
import { applyEvent, applyEvents } from "../../mission/index.ts";
import { codeSpan, inlineText } from "../../report/index.ts";
import { ARTIFACT_FILES, QUEUE_ARTIFACT, readArtifactJson } from "../artifacts.ts";
import type { DispatchInput, ModeDeps } from "../deps.ts";
import { buildQueue, fetchMissingCheckpoints, integrateOrders, readyOrders, waitingCheckpoints } from "../integrate/build-queue.ts";
import { planEvent } from "../integrate/plan-event.ts";
import { queueRecordSchema, readQueueRecord } from "../integrate/queue-record.ts";
import { reviewEvent } from "../integrate/review-event.ts";
import { publishLegs } from "../integrate/publish-legs.ts";
import type { BranchPush } from "../integrate/work-events.ts";
import { fetchRefs, hasCommit, pushRef, scrubbedEnv } from "../remote.ts";
import { pushLegs } from "../integrate/push-legs.ts";
import { replyStopped } from "../integrate/workflow-stop.ts";
import { bundleProblem, NOTHING_RUNS, replay, UnverifiedCandidateError } from "../integrate/replay.ts";
import { ConfigInvalidError, loadMission, missionConfig, missionInput } from "./shared.ts";
import { gitCommonDir } from "../../engine/index.ts";

export async function publishMode(deps: ModeDeps, input: { mission: string; artifacts: string; dispatch: DispatchInput }): Promise<void> {
  const id = missionInput(input.mission);
  deps.log.setOutput("mission", id);
  const { git, workspace: repoDir, remote, log } = deps;
  if (input.dispatch.phase === "integrate" || input.dispatch.phase === "refresh") {
    // An integrate run whose queue job found nothing (its legs were taken by an earlier run, or
    // it was skipped) has nothing to publish: it ends here, reading and writing nothing.
    const record = await readQueueRecord(input.artifacts, id);
    if (record === null || (record.checkpoints.length === 0 && (record.entries ?? []).length === 0 && record.refresh === undefined)) {
      log.info(`nothing to integrate for ${id}: the queue job took no leg and no waiting checkpoint`);
      // A refresh run whose queue job left nothing (it failed, or was cancelled) ends its lease.
      if (input.dispatch.phase === "refresh") await releaseRefresh(deps, id);
      return;
    }
  }
  const loaded = (await loadMission(deps, id)).mission;
  let config: Config;
  try {
    config = await missionConfig(deps, loaded);
  } catch (error) {
    // A mission that cannot even be planned under its config ends, saying why.
    if (!(error instanceof ConfigInvalidError) || loaded.status !== "planning") throw error;
    const failed = await applyEvent(deps.store, id, { type: "planning_failed", at: deps.now().toISOString(), reason: error.message });
    await carryOut(deps, failed);
    return;
  }
  const queueRef = queueRefName(id);
  await ensureQueueBranch(deps.github, loaded, { reset: false });
  await fetchRefs(git, repoDir, remote, [`+${queueRef}:${queueRef}`]);
  if (!(await hasCommit(git, repoDir, loaded.base.commit))) await fetchRefs(git, repoDir, remote, [`+${loaded.base.commit}:refs/naruto/base/${id}`]);

  let mission = loaded;
  const commands: MissionCommand[] = [];
  // What this job learned, applied together: one state write per group, not one per event.
  const apply = async (batch: readonly MissionEvent[]) => {
    if (batch.length === 0) return;
    const result = await applyEvents(deps.store, id, batch);
    mission = result.mission;
    commands.push(...result.commands);
    result.outcomes.forEach((o, i) => {
      if (o.kind === "illegal") log.warning(`${batch[i]?.type ?? "event"} not applied: ${o.error.message}`);
    });
  };
  const at = deps.now().toISOString();
  let events: MissionEvent[] = [];
  let pushes: BranchPush[] = [];
  switch (input.dispatch.phase) {
    case "plan": {
      const event = await planEvent({ folder: input.artifacts, mission, config, at, runUrl: deps.runUrl });
      if (event) events = [event];
      break;
    }
    case "work":
    case "integrate":
      // The legs of the work run that ended, each from its own artifact (publish-legs.ts).
      ({ events, pushes } = await publishLegs({ deps, mission, config, queueRef, dispatch: input.dispatch, folder: input.artifacts, at }));
      break;
    case "refresh": {
      const refreshed = await publishRefresh(deps, { config, mission, folder: input.artifacts });
      if (refreshed.kind === "refreshed") events = [refreshed.event];
      else await refreshNotMade(deps, mission, refreshed);
      break;
    }
    case "review": {
      const event = await reviewEvent({ folder: input.artifacts, mission, config, git, repoDir, env: scrubbedEnv(deps.env), now: deps.now });
      if (event) events = [event];
      break;
    }
    case null:
      break;
  }
  // Pushed before the events that name them are recorded (push-legs.ts).
  const pushed = await pushLegs({ deps, mission, pushes, events, at });
  await apply(pushed.events);
  if (pushed.stop !== null) await replyStopped(deps, mission, pushed.stop);

  // A refresh run integrates nothing itself: what its event leaves waiting goes to an integrate run.
  const orders = input.dispatch.phase === "refresh" ? [] : integrateOrders(waitingCheckpoints(loaded), commands);
  const later: MissionCommand[] = commands.filter((c) => c.type !== "integrate");
  commands.length = 0;
  let outcome: PublishOutcome | null = null;
  if (orders.length > 0) {
    await fetchMissingCheckpoints({ git, repoDir, remote, log, mission: id, orders });
    const { ready, gone } = await readyOrders({ git, repoDir, at: deps.now().toISOString() }, orders);
    await apply(gone);
    if (ready.length > 0) {
      outcome = await publishQueue({ deps, config, mission, ready, folder: input.artifacts });
      if (outcome.kind === "accepted") {
        if (outcome.head !== outcome.start) {
          // With a token that starts workflows (ci-token), so that the repository's CI runs on the queue.
          await pushRef(git, repoDir, deps.ciRemote ?? remote, { commit: outcome.head, ref: queueRef, expected: outcome.start });
          log.info(`pushed ${mission.queue.branch}: ${outcome.start.slice(0, 12)} → ${outcome.head.slice(0, 12)}`);
        }
        await apply(outcome.events);
      } else if (outcome.kind === "moved") {
        log.warning(outcome.reason);
        // Left waiting for a run that builds on the queue as it is now; an integrate-only run that
        // lost the race too leaves them to the next run or the sweep, so two runs never ping-pong.
        // (An integrate run, which the App starts once per ended leg, asks for one like a work run.)
        const integrateOnly = input.dispatch.phase === "work" && input.dispatch.items.length === 0;
        if (!integrateOnly) later.push({ type: "integrate", checkpoints: [] });
      } else {
        const { reason } = outcome;
        log.error(`naruto: ${reason}`);
        const at = deps.now().toISOString();
        await apply(ready.map((c) => ({ type: "verify_failed", at, item: c.item, attempt: c.attempt, output: reason })));
      }
    }
  }
  // Ended here: a base branch that moved meanwhile is said, and refreshed with `on_push` (moved-base.ts).
  if (loaded.status !== "done" && mission.status === "done") {
    const caught = await catchUpBase(deps, mission);
    if (caught.kind !== "unmoved") mission = caught.mission;
  }
  // Without an integrator, an `integrate` command left here becomes an integrate-only run.
  const done = await carryOut(deps, { mission, commands: [...later, ...commands] });
  log.setOutput("matrix", JSON.stringify(done.dispatched.map((d) => ({ item: d.item, attempt: d.attempt }))));
  await log.summary(publishSummary(done.mission, done.dispatched, outcome));
}

/** A refresh that was not made says why, on the mission's issue; when the base moved again, another is asked for. */
async function refreshNotMade(deps: ModeDeps, mission: Mission, outcome: Extract<PublishedRefresh, { kind: "not" }>): Promise<void> {
  deps.log.warning(`naruto: ${outcome.reason}`);
  const issue = issueOf(mission);
  if (issue !== null) {
    await deps.github.upsertComment({
      issue,
      marker: markerFor(`refresh:${mission.id}`),
      body: `**naruto** · mission ${codeSpan(mission.id)} · refresh: ${inlineText(outcome.reason, 3000)}`,
      ...(deps.runUrl ? { link: deps.runUrl } : {}),
    });
  }
  // The next run takes the lease over; else this run's lease ends here.
  const next = outcome.again
    ? await requestRefresh(deps, mission, { handover: true }).catch((error: unknown) =>
        deps.log.warning(`could not ask for another refresh: ${error instanceof Error ? error.message : String(error)}`),
      )
    : undefined;
  if (next?.kind !== "dispatched") await releaseRefresh(deps, mission.id);
}

export type PublishOutcome =
  | { readonly kind: "accepted"; readonly start: string; readonly head: string; readonly events: readonly Integrated[] }
  /** The queue moved since the queue job read it: nothing of its result applies. */
  | { readonly kind: "moved"; readonly reason: string }
  /** The queue job's result is not what the checked checkpoints give: nothing of it is pushed. */
  | { readonly kind: "refused"; readonly reason: string };

/**
 * The queue this run publishes, rebuilt here from `ready` (checked by this job) with the queue
 * job's verdicts; the local queue ref is put back wherever the result is not accepted.
 */
export async function publishQueue(input: {
  deps: ModeDeps;
  config: Config;
  mission: Mission;
  ready: readonly CheckpointOrder[];
  folder: string;
}): Promise<PublishOutcome> {
  const { deps, config, mission, ready } = input;
  const { git, workspace: repoDir, log } = deps;
  const queueRef = queueRefName(mission.id);
  const start = await readRef(git, repoDir, queueRef);
  if (start === null) throw new Error(`${queueRef} is missing locally: it is fetched before integrating`);
  const refused = async (why: string): Promise<PublishOutcome> => {
    await git(updateRefs(repoDir, [refUpdate(queueRef, start)]));
    return { kind: "refused", reason: `the queue job's result was refused: ${why}; nothing of it was pushed` };
  };
  const read = await readArtifactJson(input.folder, QUEUE_ARTIFACT, ARTIFACT_FILES.queue, queueRecordSchema);
  if (read.kind === "invalid") return refused(read.reason);
  const record = read.kind === "ok" ? read.value : null;
  if (record !== null && record.mission !== mission.id) return refused(`it is for ${JSON.stringify(record.mission)}`);
  const verify = config.queue.verify;
  if (verify !== null && record === null)
    return refused(`the queue job left no result${deps.runUrl ? ` (see ${deps.runUrl})` : ""}, so no candidate is verified`);
  const sameInputs = record !== null && record.start_head === start && sameOrders(record.checkpoints, ready);
  const nowSeconds = Math.floor(deps.now().getTime() / 1000);
  // The queue job's clock, so that the commits are the same bytes; a time far off is not taken.
  const time =
    record !== null && record.committer_time <= nowSeconds + 600 && record.committer_time >= nowSeconds - 7 * 24 * 3600 ? record.committer_time : nowSeconds;
  const ctx = {
    git,
    repoDir,
    commonDir: await gitCommonDir(git, repoDir),
    config,
    env: {},
    now: () => new Date(time * 1000),
    sandbox: NOTHING_RUNS,
    workRoot: join(deps.tempDir, "naruto-work"),
    nodePath: null,
    verify,
    ...(record === null || verify === null ? {} : { verifier: replay(record) }),
    log,
  };
  let built: Awaited<ReturnType<typeof buildQueue>>;
  try {
    built = await buildQueue(ctx, mission, ready);
  } catch (error) {
    if (!(error instanceof UnverifiedCandidateError)) throw error;
    await git(updateRefs(repoDir, [refUpdate(queueRef, start)]));
    if (record !== null && !sameInputs) {
      return {
        kind: "moved",
        reason: `the queue job built on ${record.start_head.slice(0, 12)} with ${record.checkpoints.length} checkpoint(s); the queue is now at ${start.slice(0, 12)} with ${ready.length}: the checkpoints wait for a run that builds on it`,
      };
    }
    return refused(`it has no verify result for the candidate ${error.commit.slice(0, 12)} that its own checkpoints give`);
  }
  if (record !== null && sameInputs) {
    if (record.head !== built.head)
      return refused(`its queue head ${record.head.slice(0, 12)} is not ${built.head.slice(0, 12)}, the one rebuilt here from the checked checkpoints`);
    const problem = await bundleProblem(deps, join(input.folder, QUEUE_ARTIFACT, ARTIFACT_FILES.queueBundle), queueRef, start, built.head);
    if (problem !== null) return refused(problem);
    const results = built.events.flatMap((e) => e.results);
    if (JSON.stringify(record.results) !== JSON.stringify(results)) return refused("its outcome per checkpoint is not the one rebuilt here");
  }
  return { kind: "accepted", start, head: built.head, events: built.events };
}

function sameOrders(a: readonly CheckpointOrder[], b: readonly CheckpointOrder[]): boolean {
  return a.length === b.length && a.every((c, i) => c.item === b[i]?.item && c.attempt === b[i]?.attempt && c.commit === b[i]?.commit && c.base === b[i]?.base);
}

function publishSummary(
  mission: Mission,
  dispatched: readonly { item: string; attempt: number; runUrl: string | null }[],
  outcome: PublishOutcome | null,
): string {
  const rows = mission.items.map((i) => `| ${codeSpan(i.id)} | ${i.status} | ${i.attempts.length} |`);
  const started =
    dispatched.length === 0
      ? ""
      : `\n\nStarted: ${dispatched.map((d) => `${codeSpan(`${d.item}#${d.attempt}`)}${d.runUrl?.startsWith("http") ? ` ([run](${d.runUrl}))` : ""}`).join(", ")}`;
  const queue = outcome === null || outcome.kind === "accepted" ? "" : `\n\n**Queue not published:** ${outcome.reason.replace(/[<>*_`[\]\\|]/g, " ")}`;
  return `### naruto ${codeSpan(mission.id)} · ${mission.status}\n\nQueue \`${mission.queue.branch}\` at \`${mission.queue.head.slice(0, 12)}\`${started}${queue}\n\n| item | status | attempts |\n|---|---|---|\n${rows.join("\n")}\n`;
}
