/**
 * Drives the pure bisection (bisect.ts) with real candidates: builds each group on top of the
 * checkpoints accepted so far, verifies it, and records the verdict. The result's tip is the
 * last candidate that verified green (or the head itself), so the queue only ever moves to a
 * verified commit.
 */
import { dropItems, nextBisectStep, recordVerify, startBisect, type BisectState } from "./bisect.ts";
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
  readonly runs: number;
}

export interface BisectInput {
  readonly head: ChainBase;
  readonly items: readonly ChainItem[];
  /** The chain of all `items` on `head`, already built (the first candidate). */
  readonly first: Chain;
  readonly build: (base: ChainBase, items: readonly ChainItem[]) => Promise<Chain>;
  readonly verify: (commit: string) => Promise<VerifyOutcome>;
}

export async function verifyWithBisection(input: BisectInput): Promise<BisectOutcome> {
  const byIndex = new Map(input.items.map((item) => [item.index, item]));
  const integrated = new Map<number, Integrated>();
  const failed = new Map<number, VerifyOutcome>();
  const conflicted = new Map<number, readonly RawPath[]>();
  let state: BisectState = startBisect(input.items.map((item) => item.index));
  let tip = input.head;
  let first: Chain | undefined = input.first;
  let lastRed: VerifyOutcome | undefined;
  let runs = 0;
  // A culprit found without a run of its own was in the last red candidate.
  const noteFailed = () => {
    for (const index of state.failed) if (!failed.has(index) && lastRed) failed.set(index, lastRed);
  };

  for (;;) {
    const next = nextBisectStep(state);
    state = next.state;
    noteFailed();
    if (next.step.kind === "done") break;
    const items = next.step.items.flatMap((i) => byIndex.get(i) ?? []);
    const chain = first ?? (await input.build(tip, items));
    first = undefined;
    const dropped: number[] = [];
    for (const step of chain.steps) {
      if (step.status === "conflicted") {
        conflicted.set(step.index, step.paths);
        dropped.push(step.index);
      }
    }
    state = dropItems(state, dropped);
    if (dropped.length === items.length) continue;
    const outcome = await input.verify(chain.tip.commit);
    runs++;
    if (!outcome.green) lastRed = outcome;
    state = recordVerify(state, outcome.green);
    noteFailed();
    if (outcome.green) {
      tip = chain.tip;
      for (const step of chain.steps) if (step.status === "integrated") integrated.set(step.index, step);
    }
  }
  return { tip, integrated, failed, conflicted, runs };
}
