/**
 * Drives the pure bisection (bisect.ts) with real candidates: builds each group on top of the
 * checkpoints accepted so far, verifies it, and records the verdict. The result's tip is the
 * last candidate that verified green (or the head itself), so the queue only ever moves to a
 * verified commit. A suspect's confirmation runs on the very candidate that was red (the build
 * is deterministic, and the chain is kept, not written again).
 */
import { dropItems, nextBisectStep, recordVerify, startBisect, type BisectOptions, type BisectState } from "./bisect.ts";
import type { Chain, ChainBase, ChainItem, ChainStep } from "./chain.ts";
import type { RawPath } from "../git/index.ts";
import type { VerifyOutcome } from "./verify.ts";

type Integrated = Extract<ChainStep, { status: "integrated" }>;

export interface BisectOutcome {
  readonly tip: ChainBase;
  readonly integrated: ReadonlyMap<number, Integrated>;
  readonly failed: ReadonlyMap<number, VerifyOutcome>;
  /** Checkpoints that stopped merging once a culprit was taken out from under them. */
  readonly conflicted: ReadonlyMap<number, readonly RawPath[]>;
  /** Suspects whose verdict flipped (a red, then a green on the same candidate): neither blamed nor taken. */
  readonly flaky: ReadonlyMap<number, Flip>;
  readonly runs: number;
  /** The run that verified `tip` (null: the tip is the head the batch started on). */
  readonly tipRun: VerifyOutcome | null;
}

/** A candidate whose verify was red, then green: the runs, in order. */
export interface Flip {
  readonly commit: string;
  readonly runs: readonly VerifyOutcome[];
}

export interface BisectInput {
  readonly head: ChainBase;
  readonly items: readonly ChainItem[];
  /** The chain of all `items` on `head`, already built (the first candidate). */
  readonly first: Chain;
  readonly build: (base: ChainBase, items: readonly ChainItem[]) => Promise<Chain>;
  readonly verify: (commit: string) => Promise<VerifyOutcome>;
  /** How much a suspect must be confirmed (default: no confirmation, the first red blames). */
  readonly confirm?: BisectOptions;
}

export async function verifyWithBisection(input: BisectInput): Promise<BisectOutcome> {
  const byIndex = new Map(input.items.map((item) => [item.index, item]));
  const integrated = new Map<number, Integrated>();
  const failed = new Map<number, VerifyOutcome>();
  const conflicted = new Map<number, readonly RawPath[]>();
  const flaky = new Map<number, Flip>();
  let state: BisectState = startBisect(
    input.items.map((item) => item.index),
    input.confirm ?? { confirmRuns: 0 },
  );
  let tip = input.head;
  let tipRun: VerifyOutcome | null = null;
  // Candidates built so far, by what they hold: a confirmation reuses the suspect's candidate.
  const built = new Map<string, Chain>([
    [
      key(
        tip.commit,
        input.items.map((i) => i.index),
      ),
      input.first,
    ],
  ]);
  // Every run of a candidate, in order: a culprit carries its last red, a flip all of them.
  const history = new Map<string, VerifyOutcome[]>();
  let runs = 0;
  const settle = () => {
    for (const index of state.failed) {
      if (failed.has(index)) continue;
      const last = [...(history.get(candidateOf(index)) ?? [])].reverse().find((o) => !o.green);
      if (last) failed.set(index, last);
    }
    for (const index of state.flaky) {
      if (!flaky.has(index)) flaky.set(index, { commit: candidateOf(index), runs: history.get(candidateOf(index)) ?? [] });
    }
  };
  // The candidate of a suspect: the accepted ones and it, built on the same tip.
  const suspects = new Map<number, string>();
  const candidateOf = (index: number) => suspects.get(index) ?? "";

  for (;;) {
    const next = nextBisectStep(state);
    state = next.state;
    settle();
    if (next.step.kind === "done") break;
    const items = next.step.items.flatMap((i) => byIndex.get(i) ?? []);
    const id = key(tip.commit, next.step.items);
    const chain = built.get(id) ?? (await input.build(tip, items));
    built.set(id, chain);
    const dropped: number[] = [];
    for (const step of chain.steps) {
      if (step.status === "conflicted") {
        conflicted.set(step.index, step.paths);
        dropped.push(step.index);
      }
    }
    state = dropItems(state, dropped);
    if (dropped.length === items.length) continue;
    const commit = chain.tip.commit;
    const outcome = await input.verify(commit);
    runs++;
    history.set(commit, [...(history.get(commit) ?? []), outcome]);
    if (next.step.items.length === 1 && next.step.items[0] !== undefined) suspects.set(next.step.items[0], commit);
    state = recordVerify(state, outcome.green);
    settle();
    if (outcome.green && !next.step.confirm) {
      tip = chain.tip;
      tipRun = outcome;
      for (const step of chain.steps) if (step.status === "integrated") integrated.set(step.index, step);
    }
  }
  return { tip, integrated, failed, conflicted, flaky, runs, tipRun };
}

const key = (tip: string, items: readonly number[]) => `${tip} ${items.join(",")}`;
