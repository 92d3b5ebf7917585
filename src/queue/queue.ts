/**
 * The merge queue (docs/architecture.md): branch `naruto/<mission>`, which only ever advances to a
 * verified commit holding every integrated checkpoint as its own commit. Nothing here touches a
 * work tree, an index or HEAD of the user's: commits are written with `fast-import` (or merged
 * in a temporary index), verified by the check the caller
 * gives, and the ref moves by compare-and-swap.
 */
import type { Git } from "../git/index.ts";
import { buildChain, type ChainContext, type ChainItem } from "./chain.ts";
import { verifyWithBisection, type BisectOutcome } from "./bisect-batch.ts";
import type { MergeEngineChoice } from "./merge.ts";
import type { CommitObject } from "../git/index.ts";
import { readCheckpoints, readTree, type TreeCache } from "./read.ts";
import { compareAndSwap, queueRefName, readRef } from "./ref.ts";
import { collectResults } from "./results.ts";
import { rawText } from "../git/index.ts";
import { QueueMissingError, QueueRaceError, QueueTamperedError, SpeculationDroppedError, type BatchResult, type Checkpoint, type Identity } from "./types.ts";
import type { VirtualTree } from "../git/index.ts";
import { verifyOnce, type JudgePolicy, type VerifyCandidate } from "./verify.ts";
import type { BisectOptions } from "./bisect.ts";

export interface CreateQueueInput {
  readonly git: Git;
  readonly repoDir: string;
  readonly mission: string;
  /** The mission's base: a commit (or anything naming one). */
  readonly base: string;
}

/**
 * Creates `refs/heads/naruto/<mission>` at the base. Idempotent: when the queue exists already
 * it is left where it is and its head is returned (`created: false`).
 */
export async function createQueueBranch(input: CreateQueueInput): Promise<{ ref: string; head: string; created: boolean }> {
  const ref = queueRefName(input.mission);
  const out = await input.git({ args: ["rev-parse", "--verify", "--end-of-options", `${input.base}^{commit}`], cwd: input.repoDir });
  const base = out.stdout.toString("latin1").trim();
  const swap = await compareAndSwap({ git: input.git, repoDir: input.repoDir, ref, next: base, expected: null, reason: "naruto: create queue" });
  if (swap.ok) return { ref, head: base, created: true };
  if (swap.current === null) throw new QueueMissingError(ref);
  return { ref, head: swap.current, created: false };
}

export interface IntegrateInput {
  readonly git: Git;
  readonly repoDir: string;
  /** Full ref name, e.g. `refs/heads/naruto/m-1a2b3c` (see `queueRefName`). */
  readonly queueRef: string;
  /** The batch, in the order it goes onto the queue. */
  readonly checkpoints: readonly Checkpoint[];
  /** Run once per batch on the candidate; bisected when red. Absent: no verification. */
  readonly verify?: VerifyCandidate;
  /** How a run is judged (default: by its exit code, and its report when it has one). */
  readonly judge?: JudgePolicy;
  /** How much a suspect is confirmed before it is blamed (default: not at all). */
  readonly confirm?: BisectOptions;
  /**
   * Speculation (a pipelined queue): the batch is built and verified on `onto`, the candidate of
   * the batch before it, while that one still verifies; `landed` says where that batch left the
   * queue. When it is `onto` (it went green whole), this batch moves the queue from there; else it
   * is dropped ({@link SpeculationDroppedError}) and nothing of it lands.
   */
  readonly speculative?: { readonly onto: string; readonly landed: Promise<string | null> };
  /** Told the batch's first candidate (every checkpoint that merges), before it is verified. */
  readonly onCandidate?: (candidate: { readonly commit: string; readonly tree: VirtualTree }) => void;
  /**
   * The head naruto last wrote to the queue. The queue is naruto's alone: when the ref is found
   * anywhere else, before or during the batch, nothing is built on it ({@link QueueTamperedError}).
   * Absent: a head that moved meanwhile is rebuilt on (for callers that share the queue).
   */
  readonly expectedHead?: string;
  /** Committer of queue commits. Absent: each checkpoint's own committer line is kept. */
  readonly committer?: Identity;
  /** Clock for the committer date (read once per call). */
  readonly now?: () => Date;
  /** Three-way merge engine for the slow path (default `auto`: detected). */
  readonly merge?: MergeEngineChoice;
  /** How many times to rebuild from a queue head that moved meanwhile (default 10). */
  readonly maxAttempts?: number;
  /** The tree of the last batch's head, kept between batches (see {@link TreeCache}). Absent: read each time. */
  readonly trees?: TreeCache;
}

function committerFor(input: IntegrateInput): (meta: CommitObject) => string {
  const who = input.committer;
  if (!who) return (meta) => meta.committer;
  if (/[<>\n]/.test(who.name + who.email)) throw new RangeError("committer name and email may not contain <, > or a newline");
  const seconds = Math.floor((input.now ?? (() => new Date()))().getTime() / 1000);
  const line = `${rawText(who.name)} <${rawText(who.email)}> ${seconds} +0000`;
  return () => line;
}

/**
 * Integrates a batch of checkpoints onto the queue head.
 *
 * Fast path: every path a checkpoint changed still holds, on the candidate, the blob it started
 * from; the whole batch is then read with one `diff-tree --stdin`, one `ls-tree`, one
 * `cat-file --batch`, and written by one `fast-import`.
 * Slow path, per checkpoint whose path
 * changed underneath: a real three-way merge; a conflict reports the paths and leaves the queue
 * as it was for that checkpoint while the others go on. With `verify`, the candidate must pass
 * it (bisection isolates failing checkpoints). A lost compare-and-swap rebuilds from the new head.
 *
 * @example
 * const { ref } = await createQueueBranch({ git, repoDir, mission: "m-1", base: "main" });
 * const batch = await integrate({ git, repoDir, queueRef: ref, checkpoints });
 * batch.results.filter((r) => r.status === "conflicted"); // retried from batch.newHead
 */
export async function integrate(input: IntegrateInput): Promise<BatchResult> {
  const { git, repoDir, queueRef } = input;
  const prepared = await readCheckpoints(git, repoDir, input.checkpoints);
  const ctx: ChainContext = { git, repoDir, merge: input.merge ?? "auto", committer: committerFor(input) };
  const items: ChainItem[] = prepared.map((p, index) => ({ index, prepared: p }));
  const check = input.verify;
  const verifier = check ? { verify: (commit: string) => verifyOnce(check, commit, input.judge) } : undefined;
  const maxAttempts = input.maxAttempts ?? 10;
  let verifyRuns = 0;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    // With the head naruto wrote, the batch is built on that head without reading the ref: a
    // ref found anywhere else fails the compare-and-swap below, and nothing built here lands.
    const head = input.speculative?.onto ?? input.expectedHead ?? (await readRef(git, repoDir, queueRef));
    if (head === null) throw new QueueMissingError(queueRef);
    const base = { commit: head, tree: await readTree(git, repoDir, head, input.trees) };
    const chain = await buildChain(ctx, base, items);
    if (attempt === 1 && chain.tip.commit !== head) input.onCandidate?.({ commit: chain.tip.commit, tree: chain.tip.tree });
    const integrable = new Set(chain.steps.flatMap((s) => (s.status === "integrated" ? [s.index] : [])));
    const firstConflicts = new Map(chain.steps.flatMap((s) => (s.status === "conflicted" ? [[s.index, s.paths] as const] : [])));
    let outcome: BisectOutcome;
    if (verifier && integrable.size > 0) {
      outcome = await verifyWithBisection({
        head: base,
        items: items.filter((i) => integrable.has(i.index)),
        first: { tip: chain.tip, steps: chain.steps.filter((s) => s.status === "integrated") },
        build: (from, some) => buildChain(ctx, from, some),
        verify: (commit) => verifier.verify(commit),
        ...(input.confirm ? { confirm: input.confirm } : {}),
      });
    } else {
      const integrated = new Map(chain.steps.flatMap((s) => (s.status === "integrated" ? [[s.index, s] as const] : [])));
      outcome = { tip: chain.tip, integrated, failed: new Map(), conflicted: new Map(), flaky: new Map(), runs: 0, tipRun: null };
    }
    verifyRuns += outcome.runs;
    // Accounted for before the ref moves: a checkpoint without a result stops the batch.
    const results = collectResults(input.checkpoints, { ...outcome, conflicted: new Map([...firstConflicts, ...outcome.conflicted]) });
    const newHead = outcome.tip.commit;
    if (input.speculative) {
      const landed = await input.speculative.landed;
      if (landed !== head) throw new SpeculationDroppedError(queueRef, head, landed);
    }
    const swap =
      newHead === head
        ? { ok: true as const }
        : await compareAndSwap({ git, repoDir, ref: queueRef, next: newHead, expected: head, reason: "naruto: integrate batch" });
    if (swap.ok) {
      input.trees?.set(newHead, outcome.tip.tree);
      return { queueRef, oldHead: head, newHead, results, verifyRuns, raceRetries: attempt - 1, report: outcome.tipRun?.report ?? null };
    }
    if (input.expectedHead !== undefined || input.speculative) throw new QueueTamperedError(queueRef, head, swap.current);
  }
  throw new QueueRaceError(queueRef, maxAttempts);
}
