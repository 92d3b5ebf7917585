/**
 * Refresh on a moved base (issue 37): the queue's checkpoints replayed, item by item and in their
 * order, onto the base branch as it is now, and verified as any batch is (the base first, then
 * the batches with bisection and confirmation). Nothing moves until the whole new queue is built:
 * the batches are built on a scratch ref, and the queue moves to its tip by one compare-and-swap
 * from the head naruto left. An item whose replay conflicts or fails is out of the new queue, and
 * so are its dependents (they were built on it); each is named with why.
 */
import { compareAndSwap, integrate, queueRefName, readRef, type CheckpointResult, type JudgePolicy } from "../queue/index.ts";
import { gitText, refUpdate, updateRefs } from "../git/index.ts";
import type { BaseCheck, Mission, MissionEvent } from "../mission/index.ts";
import { checkBase, flakyVerifyReason, policyOnBase, reportRecord } from "./base-check.ts";
import { integrationResult, NARUTO_COMMITTER, type BatchContext } from "./integrate-batch.ts";
import { queueVerifier } from "./queue-verify.ts";

export type Refreshed = Extract<MissionEvent, { type: "refreshed" }>;

export type RefreshOutcome =
  /** The base has not moved: nothing to do. */
  | { readonly kind: "unchanged"; readonly reason: string }
  /** The new base is red (or the verify flips too often): the queue is left as it was. */
  | { readonly kind: "halted"; readonly reason: string; readonly baseCheck: BaseCheck | null; readonly verifyRuns: number }
  | { readonly kind: "refreshed"; readonly event: Refreshed };

/** The mission's queue commits, oldest first, each with the item whose commit it is. */
async function queueOrder(
  ctx: Pick<BatchContext, "git" | "repoDir">,
  mission: Mission,
): Promise<{ item: string; attempt: number; commit: string; base: string }[]> {
  const byCommit = new Map(mission.items.flatMap((i) => (i.status === "integrated" && i.commit ? [[i.commit, i] as const] : [])));
  if (byCommit.size === 0) return [];
  const out = await gitText(ctx.git, {
    args: ["--no-optional-locks", "rev-list", "--reverse", "--first-parent", "--parents", `${mission.base.commit}..${mission.queue.head}`],
    cwd: ctx.repoDir,
  });
  return out.split("\n").flatMap((line) => {
    const [commit = "", parent = ""] = line.split(" ");
    const item = byCommit.get(commit);
    const attempt = item?.attempts.findLast((a) => a.status === "integrated")?.n ?? item?.attempts.length ?? 0;
    return item ? [{ item: item.id, attempt, commit, base: parent }] : [];
  });
}

/**
 * Replays the mission's queue onto `onto` and returns the `refreshed` event (or why nothing was
 * done). The queue ref moves only at the end, from `mission.queue.head`.
 */
export async function refreshQueue(ctx: BatchContext, mission: Mission, onto: { readonly ref: string; readonly commit: string }): Promise<RefreshOutcome> {
  if (onto.commit === mission.base.commit) {
    return { kind: "unchanged", reason: `nothing to refresh: ${onto.ref} is still at ${onto.commit.slice(0, 12)}, the mission's base` };
  }
  const at = () => ctx.now().toISOString();
  const queueRef = queueRefName(mission.id);
  const order = await queueOrder(ctx, mission);
  const checks =
    ctx.verify === null ? null : { command: ctx.verify, queue: ctx.config.queue, verify: ctx.verifier ?? queueVerifier(ctx, mission.id, ctx.verify) };
  let verifyRuns = 0;
  let baseCheck: BaseCheck | null = null;
  let judge: JudgePolicy | undefined;
  if (checks !== null) {
    baseCheck = await checkBase(checks.verify, { ...mission, base: { ref: onto.ref, commit: onto.commit } }, checks.command, checks.queue.confirm_runs);
    verifyRuns += baseCheck.runs.length;
    const policy = policyOnBase(baseCheck, checks.queue.red_base, onto.ref);
    if ("halt" in policy) return { kind: "halted", reason: `the queue was not refreshed: ${policy.halt}`, baseCheck, verifyRuns };
    judge = policy.judge;
  }

  // The new queue is built on a scratch ref; nothing of it is seen until it is whole.
  const scratch = `refs/naruto/refresh/${mission.id}`;
  await ctx.git(updateRefs(ctx.repoDir, [refUpdate(scratch, onto.commit)]));
  try {
    const results: CheckpointResult[] = [];
    const skipped: { item: string; reason: string }[] = [];
    const out = new Map<string, string>();
    let flips = mission.queue.flips.length + (baseCheck?.green && baseCheck.runs.includes(false) ? 1 : 0);
    let report = baseCheck?.report ?? null;
    let head = onto.commit;
    const items = new Map(mission.items.map((i) => [i.id, i]));
    const waiting = [...order];
    while (waiting.length > 0) {
      const batch: typeof order = [];
      while (waiting.length > 0 && batch.length < mission.settings.batch) {
        const next = waiting.shift();
        if (next === undefined) break;
        const item = items.get(next.item);
        const lost = [...(item?.after ?? []), ...(item?.added_after ?? [])].find((d) => out.has(d));
        if (lost !== undefined) {
          out.set(next.item, lost);
          skipped.push({
            item: next.item,
            reason: `not replayed onto ${onto.commit.slice(0, 12)}: its dependency "${lost}" did not survive the refresh (${out.get(lost) ?? ""})`,
          });
        } else batch.push(next);
      }
      if (batch.length === 0) continue;
      const done = await integrate({
        git: ctx.git,
        repoDir: ctx.repoDir,
        queueRef: scratch,
        checkpoints: batch,
        expectedHead: head,
        ...(checks ? { verify: checks.verify, confirm: { confirmRuns: checks.queue.confirm_runs, flipsBefore: flips } } : {}),
        ...(judge ? { judge } : {}),
        committer: NARUTO_COMMITTER,
        now: ctx.now,
      });
      verifyRuns += done.verifyRuns;
      head = done.newHead;
      if (done.report !== null) report = reportRecord(done.report);
      for (const r of done.results) {
        results.push(r);
        if (r.status !== "integrated") out.set(r.checkpoint.item, r.status.replace("_", " "));
        if (r.status === "flaky") flips += 1;
      }
      if (checks !== null && flips > checks.queue.max_flips) {
        return { kind: "halted", reason: `the queue was not refreshed: ${flakyVerifyReason(flips, checks.queue.max_flips)}`, baseCheck, verifyRuns };
      }
    }
    const swap = await compareAndSwap({
      git: ctx.git,
      repoDir: ctx.repoDir,
      ref: queueRef,
      next: head,
      expected: mission.queue.head,
      reason: `naruto: refresh onto ${onto.commit.slice(0, 12)}`,
    });
    if (!swap.ok) {
      const now = await readRef(ctx.git, ctx.repoDir, queueRef);
      return {
        kind: "halted",
        reason: `the queue was not refreshed: it moved meanwhile (it is at ${now?.slice(0, 12) ?? "nothing"}, the mission says ${mission.queue.head.slice(0, 12)}); refresh again`,
        baseCheck,
        verifyRuns,
      };
    }
    const event: Refreshed = {
      type: "refreshed",
      at: at(),
      base: { ref: onto.ref, commit: onto.commit },
      from: mission.base.commit,
      queue_head: head,
      verify_runs: verifyRuns,
      results: results.map(integrationResult),
      skipped,
      base_check: baseCheck,
      report,
    };
    return { kind: "refreshed", event };
  } finally {
    await ctx.git(updateRefs(ctx.repoDir, [{ verb: "delete", ref: scratch }])).catch(() => undefined);
  }
}
