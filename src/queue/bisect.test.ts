import { describe, expect, it } from "vitest";
import { dropItems, nextBisectStep, recordVerify, startBisect, type BisectState } from "./bisect.ts";

/** Runs the state machine against a verify that is red when the candidate holds a culprit. */
function simulate(n: number, culprits: ReadonlySet<number>, drop: readonly number[] = []) {
  let state: BisectState = dropItems(startBisect([...Array(n).keys()]), drop);
  let runs = 0;
  for (;;) {
    const next = nextBisectStep(state);
    state = next.state;
    if (next.step.kind === "done") break;
    runs++;
    const candidate = [...state.accepted, ...next.step.items];
    state = recordVerify(state, !candidate.some((i) => culprits.has(i)));
  }
  return { runs, accepted: state.accepted, failed: [...state.failed].sort((a, b) => a - b) };
}

const bound = (n: number, k: number) => 2 * k * Math.ceil(Math.log2(n)) + 1;

function* culpritSets(n: number, k: number): Generator<number[]> {
  if (k === 0) yield [];
  else if (k === 1) for (let a = 0; a < n; a++) yield [a];
  else for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) yield [a, b];
}

describe("bisect", () => {
  it("verifies a green batch once", () => {
    expect(simulate(16, new Set())).toEqual({ runs: 1, accepted: [...Array(16).keys()], failed: [] });
  });

  it("does nothing for an empty batch", () => {
    expect(nextBisectStep(startBisect([])).step).toEqual({ kind: "done" });
  });

  describe.each([1, 2, 7, 16])("a batch of %i", (n) => {
    it.each([1, 2].filter((k) => k <= n))("isolates exactly %i culprit(s) at every position within 2·k·⌈log2 n⌉+1 runs", (k) => {
      for (const set of culpritSets(n, k)) {
        const result = simulate(n, new Set(set));
        expect(result.failed).toEqual(set);
        expect(result.accepted).toEqual([...Array(n).keys()].filter((i) => !set.includes(i)));
        expect(result.runs).toBeLessThanOrEqual(bound(n, k));
      }
    });
  });

  it("needs far fewer runs than one per checkpoint on a large batch", () => {
    expect(simulate(200, new Set([17])).runs).toBeLessThanOrEqual(bound(200, 1));
    expect(simulate(200, new Set([3, 150])).runs).toBeLessThanOrEqual(bound(200, 2));
  });

  it("infers a known-red second half without running it", () => {
    // [0,1] red, [0] green: the candidate [0]+[1] is the red one, so 1 fails with no third run.
    expect(simulate(2, new Set([1]))).toEqual({ runs: 2, accepted: [0], failed: [1] });
  });

  it("re-runs the second half once something was removed before it", () => {
    // [0,1] red, [0] red → fails; [1] on the old base is a new candidate and must run.
    expect(simulate(2, new Set([0]))).toEqual({ runs: 3, accepted: [1], failed: [0] });
  });

  it("a red batch whose failure needs two checkpoints together fails the later one only", () => {
    let state = startBisect([0, 1]);
    let runs = 0;
    for (let next = nextBisectStep(state); next.step.kind === "verify"; next = nextBisectStep(state)) {
      runs++;
      const candidate = [...next.state.accepted, ...next.step.items];
      state = recordVerify(next.state, !(candidate.includes(0) && candidate.includes(1)));
    }
    expect({ runs, accepted: nextBisectStep(state).state.accepted, failed: nextBisectStep(state).state.failed }).toEqual({
      runs: 2,
      accepted: [0],
      failed: [1],
    });
  });

  it("dropped checkpoints are neither accepted nor failed", () => {
    expect(simulate(7, new Set([5]), [2])).toEqual({ runs: expect.any(Number), accepted: [0, 1, 3, 4, 6], failed: [5] });
  });
});
