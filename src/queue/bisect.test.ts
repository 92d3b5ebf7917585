import { describe, expect, it } from "vitest";
import { dropItems, nextBisectStep, recordVerify, redsNeeded, startBisect, type BisectOptions, type BisectState } from "./bisect.ts";
import { seededRandom } from "../../test/support/seeded-random.ts";

/** Runs the state machine against a verify that answers `green(candidate)` for each candidate. */
function drive(
  n: number,
  green: (candidate: readonly number[], confirm: boolean) => boolean,
  options: BisectOptions = { confirmRuns: 1 },
  drop: readonly number[] = [],
) {
  let state: BisectState = dropItems(startBisect([...Array(n).keys()], options), drop);
  let runs = 0;
  let confirms = 0;
  for (;;) {
    const next = nextBisectStep(state);
    state = next.state;
    if (next.step.kind === "done") break;
    runs++;
    if (next.step.confirm) confirms++;
    state = recordVerify(state, green([...state.accepted, ...next.step.items], next.step.confirm));
  }
  return { runs, confirms, accepted: state.accepted, failed: [...state.failed].sort((a, b) => a - b), flaky: state.flaky, flips: state.flips };
}

/** A verify that is red exactly when the candidate holds a culprit. */
const simulate = (n: number, culprits: ReadonlySet<number>, options: BisectOptions = { confirmRuns: 1 }, drop: readonly number[] = []) =>
  drive(n, (candidate) => !candidate.some((i) => culprits.has(i)), options, drop);

/** Bisection's own runs, plus each culprit's confirmations (its own run and `confirmRuns` more). */
const bound = (n: number, k: number, confirmRuns: number) => 2 * k * Math.ceil(Math.log2(n)) + 1 + k * (1 + confirmRuns);

function* culpritSets(n: number, k: number): Generator<number[]> {
  if (k === 0) yield [];
  else if (k === 1) for (let a = 0; a < n; a++) yield [a];
  else for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) yield [a, b];
}

describe("bisect", () => {
  it("verifies a green batch once", () => {
    expect(simulate(16, new Set())).toMatchObject({ runs: 1, accepted: [...Array(16).keys()], failed: [], flaky: [] });
  });

  it("does nothing for an empty batch", () => {
    expect(nextBisectStep(startBisect([])).step).toEqual({ kind: "done" });
  });

  describe.each([1, 2, 7, 16])("a batch of %i", (n) => {
    it.each(
      [
        [1, 0],
        [1, 1],
        [2, 1],
        [2, 3],
      ].filter(([k]) => (k ?? 0) <= n),
    )("isolates exactly %i culprit(s) at every position, confirmed with %i more run(s), within the bound", (k, confirmRuns) => {
      for (const set of culpritSets(n, k)) {
        const result = simulate(n, new Set(set), { confirmRuns });
        expect(result.failed).toEqual(set);
        expect(result.flaky).toEqual([]);
        expect(result.accepted).toEqual([...Array(n).keys()].filter((i) => !set.includes(i)));
        expect(result.runs).toBeLessThanOrEqual(bound(n, k, confirmRuns));
      }
    });
  });

  it("needs far fewer runs than one per checkpoint on a large batch", () => {
    expect(simulate(200, new Set([17])).runs).toBeLessThanOrEqual(bound(200, 1, 1));
    expect(simulate(200, new Set([3, 150])).runs).toBeLessThanOrEqual(bound(200, 2, 1));
  });

  it("gives a culprit inferred from an identical red candidate runs of its own before blaming it", () => {
    // [0,1] red, [0] green: the candidate [0]+[1] is the red one; 1 still runs on its own, twice.
    const result = drive(2, (c) => !c.includes(1));
    expect(result).toMatchObject({ runs: 4, confirms: 2, accepted: [0], failed: [1] });
  });

  it("confirms a red batch of one before blaming it", () => {
    expect(simulate(1, new Set([0]), { confirmRuns: 2 })).toMatchObject({ runs: 3, confirms: 2, accepted: [], failed: [0] });
  });

  it("re-runs the second half once something was removed before it", () => {
    // [0,1] red, [0] red, confirmed → fails; [1] on the old base is a new candidate and must run.
    expect(simulate(2, new Set([0]))).toMatchObject({ runs: 4, accepted: [1], failed: [0] });
  });

  it("a red batch whose failure needs two checkpoints together fails the later one only", () => {
    expect(drive(2, (c) => !(c.includes(0) && c.includes(1)))).toMatchObject({ accepted: [0], failed: [1], flaky: [] });
  });

  it("dropped checkpoints are neither accepted nor failed", () => {
    expect(simulate(7, new Set([5]), { confirmRuns: 1 }, [2])).toMatchObject({ accepted: [0, 1, 3, 4, 6], failed: [5] });
  });

  it("a suspect whose confirmation is green flips: blamed for nothing, not taken, and the rest goes on", () => {
    // Every run is green except the batch's first and the suspect's own first: a flaky red.
    let reds = 0;
    const result = drive(4, (_c, confirm) => {
      if (!confirm && reds === 0) return (reds++, false);
      if (confirm && reds === 1) return (reds++, false);
      return true;
    });
    expect(result.failed).toEqual([]);
    expect(result.flaky).toHaveLength(1);
    expect(result.flips).toBe(1);
    expect([...result.accepted, ...result.flaky].sort()).toEqual([0, 1, 2, 3]);
  });

  it("asks one more red of a suspect for every flip the mission saw, up to a cap", () => {
    expect(redsNeeded(startBisect([0], { confirmRuns: 1 }))).toBe(2);
    expect(redsNeeded(startBisect([0], { confirmRuns: 1, flipsBefore: 2 }))).toBe(4);
    expect(redsNeeded(startBisect([0], { confirmRuns: 1, flipsBefore: 50 }))).toBe(6);
    expect(simulate(1, new Set([0]), { confirmRuns: 1, flipsBefore: 2 })).toMatchObject({ runs: 4, failed: [0] });
  });

  it("a verify that fails one run in five rarely blames a good checkpoint, and each confirm run makes it rarer", () => {
    // A flaky verify blames an innocent only after 2 + confirm_runs red runs in a row: about
    // 0.2^(2 + confirm_runs) per batch, times the few ways bisection can get there.
    const blamedIn = (confirmRuns: number) => {
      let blamed = 0;
      for (let seed = 1; seed <= 10_000; seed++) {
        const random = seededRandom(seed);
        const result = drive(4, () => random() >= 0.2, { confirmRuns });
        blamed += result.failed.length;
        expect([...result.accepted, ...result.flaky, ...result.failed].sort()).toEqual([0, 1, 2, 3]);
      }
      return blamed / 10_000;
    };
    const [one, three] = [blamedIn(1), blamedIn(3)];
    expect(one).toBeLessThan(0.02);
    expect(three).toBeLessThan(0.001);
    expect(three).toBeLessThan(one / 10);
  });

  it("rejects a negative number of confirm runs", () => {
    expect(() => startBisect([0], { confirmRuns: -1 })).toThrow(RangeError);
  });
});
