/**
 * Integration of one batch, for both drivers (the local run, the Action's queue and publish jobs): checkpoints
 * go onto the queue in batches of `queue.batch`, one batch at a time, each verified (and bisected
 * when red) by the merge queue of `src/queue/`.
 */
import { createTreeCache, integrate } from "../queue/index.ts";
import type { VirtualTree } from "../git/index.ts";
import type { CheckpointResult, JudgePolicy, TreeCache } from "../queue/index.ts";
import { queueRefName } from "../queue/index.ts";
import { GitError, gitText } from "../git/index.ts";
import type { VerifyCandidate } from "../queue/index.ts";
import type { BaseCheck, Mission } from "../mission/index.ts";
import { checkBase, flakyVerifyReason, knownBaseCheck, policyOnBase, reportRecord } from "./base-check.ts";
import { testFindings, type BatchItem } from "./test-findings.ts";
import type { CheckpointOrder, IntegrationResult, MissionEvent } from "../mission/index.ts";
import type { EngineContext } from "./context.ts";
import { queueVerifier } from "./queue-verify.ts";

export type Integrated = Extract<MissionEvent, { type: "integrated" }>;

export interface IntegratorContext extends EngineContext {
  /** The queue's verify command (config `queue.verify`, or `--verify`); null: none. */
  readonly verify: string | null;
  /**
   * How a candidate is verified when not by running `verify` here: the Action's publish job,
   * which runs nothing of the repository, replays the queue job's record of its runs.
   */
  readonly verifier?: VerifyCandidate;
  /**
   * The queue head naruto last wrote, when the driver knows it: the batch is built on nothing else
   * (a queue found elsewhere throws QueueTamperedError). Null or absent: the head as found.
   */
  readonly expectedHead?: string | null;
  /** The tree of the last batch's head, kept between batches by a driver that runs many (see TreeCache). */
  readonly trees?: TreeCache;
}

/** A batch's first candidate, told before it is verified: the next batch may be built on it. */
export interface Candidate {
  readonly commit: string;
  readonly tree: VirtualTree;
  /** The base check the batch was judged by (the next batch needs no other). */
  readonly baseCheck: BaseCheck | null;
}

/**
 * A pipelined queue (issue 37): `onCandidate` hears a batch's candidate before its verify ends;
 * `speculative` builds this batch on the candidate of the batch still verifying (`onto`), which
 * lands or not (`predecessor`, its event; null when it failed): this batch then moves the queue,
 * or is dropped (SpeculationDroppedError) and goes again.
 */
export interface PipelineOptions {
  readonly onCandidate?: (candidate: Candidate) => void;
  readonly speculative?: { readonly onto: Candidate; readonly predecessor: Promise<Integrated | null> };
}

function seededTrees(onto: Candidate): TreeCache {
  const trees = createTreeCache();
  trees.set(onto.commit, onto.tree);
  return trees;
}

/** Without a verify command a batch needs only git and a clock (tests, the engine benchmark). */
export type BatchContext =
  | IntegratorContext
  | (Pick<IntegratorContext, "git" | "repoDir" | "now" | "verifier" | "expectedHead" | "trees"> & { readonly verify: null });

export const NARUTO_COMMITTER = { name: "naruto", email: "naruto@users.noreply.github.com" } as const;

/**
 * Integrates one batch and returns the `integrated` event. A checkpoint that is already on the
 * queue (the runner stopped after integrating but before saving the mission) is recognised by
 * its trailers and reported with its queue commit instead of being applied twice.
 *
 * With a verify command: the base is verified first (once per base and command, see
 * base-check.ts), suspects are confirmed before they are blamed (`queue.confirm_runs`), and what
 * the tests did is compared with the head the batch was built on (test-findings.ts).
 */
export async function integrateBatch(
  ctx: BatchContext,
  mission: Mission,
  batch: readonly CheckpointOrder[],
  options: PipelineOptions = {},
): Promise<Integrated> {
  const queueRef = queueRefName(mission.id);
  const at = () => ctx.now().toISOString();
  const onQueue = await integratedAttempts(ctx, mission, queueRef);
  const results: IntegrationResult[] = [];
  const todo: CheckpointOrder[] = [];
  for (const c of batch) {
    const found = onQueue.get(`${c.item}#${c.attempt}`);
    if (found) results.push({ kind: "integrated", item: c.item, attempt: c.attempt, commit: found.commit, changed: found.changed });
    else todo.push(c);
  }
  let head = mission.queue.head;
  let verifyRuns = 0;
  if (todo.length === 0) {
    head = (await gitText(ctx.git, { args: ["rev-parse", queueRef], cwd: ctx.repoDir })) || head;
    return { type: "integrated", at: at(), queue_head: head, verify_runs: 0, results };
  }
  const checks =
    ctx.verify === null ? null : { command: ctx.verify, queue: ctx.config.queue, verify: ctx.verifier ?? queueVerifier(ctx, mission.id, ctx.verify) };
  let baseCheck: BaseCheck | null = null;
  let judge: JudgePolicy | undefined;
  if (checks !== null) {
    const known = options.speculative?.onto.baseCheck ?? knownBaseCheck(mission, checks.command);
    if (known === null) {
      baseCheck = await checkBase(checks.verify, mission, checks.command, checks.queue.confirm_runs);
      verifyRuns += baseCheck.runs.length;
    }
    const policy = policyOnBase(known ?? (baseCheck as BaseCheck), checks.queue.red_base, mission.base.ref);
    if ("halt" in policy) return { type: "integrated", at: at(), queue_head: head, verify_runs: verifyRuns, results, base_check: baseCheck, halt: policy.halt };
    judge = policy.judge;
  }
  const usedBase = baseCheck ?? (checks === null ? null : knownBaseCheck(mission, checks.command));
  const spec = options.speculative;
  const trees = spec ? seededTrees(spec.onto) : ctx.trees;
  const batchResult = await integrate({
    git: ctx.git,
    repoDir: ctx.repoDir,
    queueRef,
    checkpoints: todo,
    ...(checks
      ? {
          verify: checks.verify,
          confirm: {
            confirmRuns: checks.queue.confirm_runs,
            flipsBefore: mission.queue.flips.length + (baseCheck?.runs.includes(false) && baseCheck.green ? 1 : 0),
          },
        }
      : {}),
    ...(judge ? { judge } : {}),
    ...(ctx.expectedHead ? { expectedHead: ctx.expectedHead } : {}),
    ...(trees ? { trees } : {}),
    ...(spec ? { speculative: { onto: spec.onto.commit, landed: spec.predecessor.then((e) => e?.queue_head ?? null) } } : {}),
    ...(options.onCandidate
      ? { onCandidate: (c: { commit: string; tree: VirtualTree }) => options.onCandidate?.({ ...c, baseCheck: spec?.onto.baseCheck ?? usedBase }) }
      : {}),
    committer: NARUTO_COMMITTER,
    now: ctx.now,
  });
  head = batchResult.newHead;
  verifyRuns += batchResult.verifyRuns;
  for (const r of batchResult.results) results.push(integrationResult(r));
  const event: Integrated = {
    type: "integrated",
    at: at(),
    queue_head: head,
    verify_runs: verifyRuns,
    results,
    ...(baseCheck ? { base_check: baseCheck } : {}),
  };
  if (checks === null) return event;
  const previous = spec ? await spec.predecessor : null;
  const before =
    previous?.report ??
    (mission.queue.head === mission.base.commit ? ((baseCheck ?? mission.queue.base_check)?.report ?? mission.queue.report) : mission.queue.report);
  const findings =
    head !== batchResult.oldHead && before != null && batchResult.report !== null
      ? testFindings({ before, after: batchResult.report, items: batchItems(mission, results), head, at: event.at })
      : [];
  const baseFlip = baseCheck?.green && baseCheck.runs.includes(false) ? 1 : 0;
  const flaky = (e: Integrated | null) => e?.results.filter((r) => r.kind === "flaky").length ?? 0;
  const flips = mission.queue.flips.length + baseFlip + flaky(previous) + flaky(event);
  return {
    ...event,
    report: reportRecord(batchResult.report),
    ...(findings.length > 0 ? { test_findings: findings } : {}),
    ...(flips > checks.queue.max_flips ? { halt: flakyVerifyReason(flips, checks.queue.max_flips) } : {}),
  };
}

/** A checkpoint's result on the queue as the mission records it: in a batch's `integrated`, and in `refreshed`. */
export function integrationResult(r: CheckpointResult): IntegrationResult {
  const { item, attempt } = r.checkpoint;
  switch (r.status) {
    case "integrated":
      return { kind: "integrated", item, attempt, commit: r.commit, changed: [...r.changed] };
    case "conflicted":
      return { kind: "conflicted", item, attempt, paths: [...r.paths] };
    case "verify_failed":
      return { kind: "verify_failed", item, attempt, output: `exit ${r.exitCode ?? "none"}\n${r.outputTail}` };
    case "flaky":
      return { kind: "flaky", item, attempt, candidate: r.candidate, runs: r.runs.map((run) => run.green), output: r.outputTail };
  }
}

/** The batch's integrated items with their writes, for naming who dropped tests. */
function batchItems(mission: Mission, results: readonly IntegrationResult[]): BatchItem[] {
  return results.flatMap((r) => {
    if (r.kind !== "integrated") return [];
    const item = mission.items.find((i) => i.id === r.item);
    return [{ id: r.item, writes: item?.writes ?? [], changed: r.changed }];
  });
}

/**
 * Queue commits the mission may not know of yet, by `item#attempt`, read from their trailers:
 * those after the queue head the mission recorded. Everything up to that head came with an
 * `integrated` event the mission has applied, so the walk is O(batch), not O(queue), however long
 * the queue grows. When git does not know that head (it is not in this clone), the walk starts at
 * the mission's base, as it always did. When the driver knows the queue is still at the head the
 * mission recorded (`expectedHead`: naruto's own last write, which the batch is built on and
 * compared-and-swapped from), there is nothing after it and nothing is walked.
 */
async function integratedAttempts(
  ctx: Pick<IntegratorContext, "git" | "repoDir" | "expectedHead">,
  mission: Mission,
  queueRef: string,
): Promise<Map<string, { commit: string; changed: string[] }>> {
  if (ctx.expectedHead != null && ctx.expectedHead === mission.queue.head) return new Map();
  const format =
    "%x1e%H%x1f%(trailers:key=Naruto-Mission,valueonly,separator=%x2c)%x1f%(trailers:key=Naruto-Item,valueonly,separator=%x2c)%x1f%(trailers:key=Naruto-Attempt,valueonly,separator=%x2c)%x1f";
  const walk = (since: string) =>
    gitText(ctx.git, { args: ["--no-optional-locks", "log", `--format=${format}`, "--name-only", "-z", `${since}..${queueRef}`, "--"], cwd: ctx.repoDir });
  let out: string;
  try {
    out = await walk(mission.queue.head);
  } catch (e) {
    if (!(e instanceof GitError) || mission.queue.head === mission.base.commit) throw e;
    out = await walk(mission.base.commit);
  }
  const found = new Map<string, { commit: string; changed: string[] }>();
  for (const record of out.split("\x1e").slice(1)) {
    const [commit, m, item, attempt, names] = record.split("\x1f");
    if (!commit || m?.trim() !== mission.id || !item || !attempt) continue;
    const changed = (names ?? "")
      .split("\0")
      .map((n) => n.replace(/^\n/, ""))
      .filter((n) => n !== "");
    found.set(`${item.trim()}#${attempt.trim()}`, { commit, changed });
  }
  return found;
}
