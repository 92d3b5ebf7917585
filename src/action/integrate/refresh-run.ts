/**
 * A `refresh` run on Actions (issue 37): the queue replayed onto the base branch as it is now.
 * The queue job (no write token) replays and verifies it (`refreshQueue`, the record of every
 * verify run kept) and hands on the new queue as a bundle; the publish job, which runs nothing of
 * the repository, replays it again with the queue job's verify results, takes the result only if
 * its commits are the same, moves the queue branch with a lease on the head it replaced, and
 * records the `refreshed` event. The pull request and the tracking comment are then rendered
 * from the mission as always.
 */
import { join } from "node:path";
import { writeFile } from "node:fs/promises";
import type { Config } from "../../config/index.ts";
import { gitCommonDir, queueVerifier, refreshQueue, type RefreshOutcome, type Refreshed } from "../../engine/index.ts";
import { gitText, refUpdate, updateRefs } from "../../git/index.ts";
import type { Mission } from "../../mission/index.ts";
import { queueRefName, readRef, type VerifyCandidate } from "../../queue/index.ts";
import { codeSpan } from "../../report/index.ts";
import { ARTIFACT_FILES, QUEUE_ARTIFACT, readArtifactJson } from "../artifacts.ts";
import type { AgentStepDeps, ModeDeps } from "../deps.ts";
import type { PreparedOf } from "../prepared.ts";
import { fetchRefs, hasCommit, pushRef } from "../remote.ts";
import { WorkflowPermissionError } from "../../github/index.ts";
import { engineContext } from "../modes/shared.ts";
import { queueRecordSchema, type QueueRecord } from "./queue-record.ts";
import { bundleProblem, NOTHING_RUNS, replay, UnverifiedCandidateError } from "./replay.ts";

/** The base branch's head, fetched into this checkout (the action's step, with the job's token). */
export async function fetchBaseTip(deps: ModeDeps, mission: Mission): Promise<{ ref: string; commit: string }> {
  const local = `refs/naruto/refresh-base/${mission.id}`;
  await fetchRefs(deps.git, deps.workspace, deps.remote, [`+refs/heads/${mission.base.ref}:${local}`]);
  const commit = await readRef(deps.git, deps.workspace, local);
  if (commit === null) throw new Error(`the base branch ${mission.base.ref} of ${mission.id} could not be fetched`);
  return { ref: mission.base.ref, commit };
}

/** The queue step of a refresh run: replay, verify, and leave the record and the bundle. */
export async function refreshStep(
  deps: AgentStepDeps,
  job: PreparedOf<"queue">,
  input: { config: Config; start: string; recorded: (verify: VerifyCandidate, runs: QueueRecord["verify"]) => VerifyCandidate },
): Promise<void> {
  const { mission } = job;
  const onto = job.onto;
  if (onto === undefined) throw new Error("a refresh run's queue step needs the base branch's head from naruto's action step");
  const time = Math.floor(deps.now().getTime() / 1000);
  const runs: QueueRecord["verify"] = [];
  const ctx = await engineContext(deps, input.config);
  const verify = input.config.queue.verify;
  const outcome = await refreshQueue(
    {
      ...ctx,
      now: () => new Date(time * 1000),
      verify,
      ...(verify === null ? {} : { verifier: input.recorded(queueVerifier(ctx, mission.id, verify), runs) }),
    },
    mission,
    onto,
  );
  const head = outcome.kind === "refreshed" ? outcome.event.queue_head : input.start;
  const record: QueueRecord = {
    schema: "naruto.queue/v1",
    mission: mission.id,
    start_head: input.start,
    committer_time: time,
    entries: [],
    checkpoints: [],
    verify: runs,
    head,
    results: [],
    refresh: { onto, kind: outcome.kind, reason: outcome.kind === "refreshed" ? null : outcome.reason },
  };
  await writeFile(join(job.artifact, ARTIFACT_FILES.queue), `${JSON.stringify(record, null, 2)}\n`);
  if (head !== input.start) {
    await gitText(deps.git, {
      args: ["bundle", "create", join(job.artifact, ARTIFACT_FILES.queueBundle), queueRefName(mission.id), `^${onto.commit}`],
      cwd: deps.workspace,
    });
  }
  deps.log.info(describe(outcome, mission));
  await deps.log.summary(`### naruto ${codeSpan(mission.id)} · refresh\n\n${describe(outcome, mission)}\n`);
}

export function describe(outcome: RefreshOutcome, mission: Mission): string {
  if (outcome.kind !== "refreshed") return outcome.reason;
  const e = outcome.event;
  const out = [...e.results.filter((r) => r.kind !== "integrated").map((r) => r.item), ...e.skipped.map((s) => s.item)];
  return `the queue of ${mission.id} was replayed onto ${e.base.ref} at ${e.base.commit.slice(0, 12)}: ${e.results.filter((r) => r.kind === "integrated").length} item(s) replayed and verified${out.length > 0 ? `, not on the new queue: ${out.join(", ")}` : ""}; queue at ${e.queue_head.slice(0, 12)}`;
}

export type PublishedRefresh =
  | { readonly kind: "refreshed"; readonly event: Refreshed }
  | { readonly kind: "not"; readonly reason: string; readonly again: boolean };

/**
 * The publish job's part: the queue job's refresh taken only as far as this job can check it
 * (replayed here with its verify runs, the same commits, the same outcome), then the queue branch
 * moved with a lease on the head it replaces. `again`: the base moved once more meanwhile, and a
 * new refresh should be asked for.
 */
export async function publishRefresh(deps: ModeDeps, input: { config: Config; mission: Mission; folder: string }): Promise<PublishedRefresh> {
  const { mission } = input;
  const { git, workspace: repoDir, remote } = deps;
  const not = (reason: string, again = false): PublishedRefresh => ({ kind: "not", reason, again });
  const read = await readArtifactJson(input.folder, QUEUE_ARTIFACT, ARTIFACT_FILES.queue, queueRecordSchema);
  if (read.kind !== "ok" || read.value.mission !== mission.id || read.value.refresh === undefined)
    return not("the queue job left no refresh of this mission; nothing was refreshed");
  const record = read.value;
  const refresh = record.refresh;
  if (refresh === undefined) return not("no refresh");
  const queueRef = queueRefName(mission.id);
  const start = await readRef(git, repoDir, queueRef);
  if (start === null || start !== record.start_head || start !== mission.queue.head) {
    return not(`the queue moved since the queue job read it (it is at ${start?.slice(0, 12) ?? "nothing"}): nothing was refreshed`, true);
  }
  const tip = await deps.github.getRef(`refs/heads/${mission.base.ref}`);
  if (tip !== refresh.onto.commit)
    return not(`${mission.base.ref} moved again while the queue was replayed (it is at ${tip?.slice(0, 12) ?? "nothing"}): a new refresh follows`, true);
  if (!(await hasCommit(git, repoDir, refresh.onto.commit)))
    await fetchRefs(git, repoDir, remote, [`+${refresh.onto.commit}:refs/naruto/refresh-base/${mission.id}`]);
  const nowSeconds = Math.floor(deps.now().getTime() / 1000);
  const time = record.committer_time <= nowSeconds + 600 && record.committer_time >= nowSeconds - 7 * 24 * 3600 ? record.committer_time : nowSeconds;
  const verify = input.config.queue.verify;
  const ctx = {
    git,
    repoDir,
    commonDir: await gitCommonDir(git, repoDir),
    config: input.config,
    env: {},
    now: () => new Date(time * 1000),
    sandbox: NOTHING_RUNS,
    workRoot: join(deps.tempDir, "naruto-work"),
    nodePath: null,
    verify,
    ...(verify === null ? {} : { verifier: replay(record) }),
  };
  let outcome: RefreshOutcome;
  try {
    outcome = await refreshQueue(ctx, mission, refresh.onto);
  } catch (error) {
    if (!(error instanceof UnverifiedCandidateError)) throw error;
    await git(updateRefs(repoDir, [refUpdate(queueRef, start)]));
    return not(
      `the queue job's refresh was refused: it has no verify result for the candidate ${error.commit.slice(0, 12)} the replay gives; nothing was refreshed`,
    );
  }
  if (outcome.kind !== refresh.kind) {
    await git(updateRefs(repoDir, [refUpdate(queueRef, start)]));
    return not(`the queue job's refresh was refused: it says ${refresh.kind}, the replay here ${outcome.kind}; nothing was refreshed`);
  }
  if (outcome.kind !== "refreshed") return not(outcome.reason);
  const head = outcome.event.queue_head;
  const problem =
    head !== record.head
      ? `its queue head ${record.head.slice(0, 12)} is not ${head.slice(0, 12)}, the one replayed here`
      : await bundleProblem(deps, join(input.folder, QUEUE_ARTIFACT, ARTIFACT_FILES.queueBundle), queueRef, start, head);
  if (problem !== null) {
    await git(updateRefs(repoDir, [refUpdate(queueRef, start)]));
    return not(`the queue job's refresh was refused: ${problem}; nothing was refreshed`);
  }
  // Not a fast-forward: the queue now stands on the new base. The lease is the head it replaces.
  try {
    await pushRef(git, repoDir, remote, { commit: head, ref: queueRef, expected: start, force: true });
  } catch (error) {
    if (!(error instanceof WorkflowPermissionError)) throw error;
    // GitHub refuses a branch update that changes workflow files to a token without the
    // `workflows` permission: the new base changed one since the mission's (workflow-rule.ts).
    await git(updateRefs(repoDir, [refUpdate(queueRef, start)]));
    return not(
      `GitHub refused to move ${mission.queue.branch} onto ${refresh.onto.ref} at ${refresh.onto.commit.slice(0, 12)}: ${refresh.onto.ref} changed its workflow file ${error.path} since the mission's base, and naruto's token has no workflows permission. The queue stays on ${mission.base.commit.slice(0, 12)}: merge its pull request as it is (a person may update its branch, workflow files included), or ask naruto again once it is merged; nothing was refreshed`,
    );
  }
  deps.log.info(`pushed ${mission.queue.branch}: ${start.slice(0, 12)} → ${head.slice(0, 12)} on ${refresh.onto.ref} at ${refresh.onto.commit.slice(0, 12)}`);
  return { kind: "refreshed", event: outcome.event };
}
