/**
 * Which checkpoints of a red batch to verify next: a pure state machine, no git.
 *
 * The batch is a list of groups resolved front to back. The front group is verified on top of
 * everything accepted so far; green accepts it, red splits it in halves. A group is known red
 * without a run when it is the second half of a red group and nothing was removed from the first
 * half: its candidate is then exactly the red one. With k culprits among n checkpoints this
 * costs at most about 2·k·log2(n) + 1 runs, plus the confirmations below; with none, one run.
 *
 * Confirm before blaming: a checkpoint left alone in a red group (its own red run, or a red
 * inferred from an identical candidate) is a suspect, not a culprit. Its candidate runs again
 * until it has been red `1 + confirmRuns` times in a row, plus once more for every flip the
 * mission has seen (a verify known to flip needs more evidence). One green run among them is a
 * flip: the verify is flaky on that candidate, the suspect is blamed for nothing and not taken
 * either (the queue does not move onto a candidate whose verdict flipped): it is `flaky`, left
 * for a later batch.
 *
 * The driver loops: `nextBisectStep` → verify `step.items` (built on the accepted ones) →
 * `recordVerify` → … until the step is `done`.
 */

interface Group {
  readonly items: readonly number[];
  /** Known red while `removed` still has this value (see above). */
  readonly redWhileRemoved?: number;
}

/** A checkpoint whose candidate (the accepted ones and it) was red `reds` times in a row. */
interface Suspect {
  readonly item: number;
  readonly reds: number;
}

export interface BisectOptions {
  /** Runs after a suspect's first red that must all be red before it is blamed (`queue.confirm_runs`). */
  readonly confirmRuns: number;
  /** Flips the mission saw before this batch: each asks one more red of a suspect. */
  readonly flipsBefore?: number;
}

export interface BisectState {
  /** Accepted checkpoints, in order: the next candidate is built on top of them. */
  readonly accepted: readonly number[];
  /** Checkpoints isolated as failing verification, each confirmed. */
  readonly failed: readonly number[];
  /** Suspects whose verdict flipped: neither blamed nor accepted. */
  readonly flaky: readonly number[];
  /** How many checkpoints left the batch (failed, flaky, or dropped by the driver). */
  readonly removed: number;
  readonly groups: readonly Group[];
  readonly suspect: Suspect | null;
  readonly confirmRuns: number;
  /** Flips before this batch and in it. */
  readonly flips: number;
}

/** `confirm`: the run is a confirmation of a suspect (the same candidate as a red one). */
export type BisectStep = { readonly kind: "verify"; readonly items: readonly number[]; readonly confirm: boolean } | { readonly kind: "done" };

/** Every extra red a flip asks for is capped here: past it the mission says its verify is flaky. */
const MAX_FLIP_REDS = 4;

export function startBisect(items: readonly number[], options: BisectOptions = { confirmRuns: 0 }): BisectState {
  if (!Number.isInteger(options.confirmRuns) || options.confirmRuns < 0) throw new RangeError("confirmRuns must be a whole number ≥ 0");
  return {
    accepted: [],
    failed: [],
    flaky: [],
    removed: 0,
    groups: items.length > 0 ? [{ items }] : [],
    suspect: null,
    confirmRuns: options.confirmRuns,
    flips: options.flipsBefore ?? 0,
  };
}

/** Red runs in a row a suspect's candidate needs before the suspect is blamed. */
export function redsNeeded(state: Pick<BisectState, "confirmRuns" | "flips">): number {
  return 1 + state.confirmRuns + Math.min(state.flips, MAX_FLIP_REDS);
}

const isKnownRed = (state: BisectState, group: Group) => group.redWhileRemoved === state.removed;

/** Resolves what needs no run (empty groups, confirmed suspects, splits of known-red groups), then says what to verify. */
export function nextBisectStep(state: BisectState): { state: BisectState; step: BisectStep } {
  let s = state;
  for (;;) {
    if (s.suspect !== null) {
      if (s.suspect.reds < redsNeeded(s)) return { state: s, step: { kind: "verify", items: [s.suspect.item], confirm: true } };
      s = { ...s, failed: [...s.failed, s.suspect.item], removed: s.removed + 1, suspect: null };
      continue;
    }
    const [group, ...rest] = s.groups;
    if (!group) return { state: s, step: { kind: "done" } };
    if (group.items.length === 0) {
      s = { ...s, groups: rest };
    } else if (!isKnownRed(s, group)) {
      return { state: s, step: { kind: "verify", items: group.items, confirm: false } };
    } else if (group.items.length === 1) {
      // Known red only by inference (its candidate ran red, but for a bigger group): a suspect
      // with no red of its own yet.
      const [item = 0] = group.items;
      s = { ...s, suspect: { item, reds: 0 }, groups: rest };
    } else {
      const half = Math.ceil(group.items.length / 2);
      const first: Group = { items: group.items.slice(0, half) };
      const second: Group = { items: group.items.slice(half), redWhileRemoved: s.removed };
      s = { ...s, groups: [first, second, ...rest] };
    }
  }
}

/** Records the verdict on the last `verify` step (the front group, or the suspect's confirmation). */
export function recordVerify(state: BisectState, green: boolean): BisectState {
  const suspect = state.suspect;
  if (suspect !== null) {
    if (!green) return { ...state, suspect: { item: suspect.item, reds: suspect.reds + 1 } };
    return { ...state, suspect: null, flaky: [...state.flaky, suspect.item], removed: state.removed + 1, flips: state.flips + 1 };
  }
  const [group, ...rest] = state.groups;
  if (!group) return state;
  if (green) return { ...state, accepted: [...state.accepted, ...group.items], groups: rest };
  // Alone and red in a run of its own: a suspect with that red to its name.
  const [only] = group.items;
  if (group.items.length === 1 && only !== undefined) return { ...state, suspect: { item: only, reds: 1 }, groups: rest };
  return { ...state, groups: [{ items: group.items, redWhileRemoved: state.removed }, ...rest] };
}

/** Takes checkpoints out of the batch for another reason (e.g. they no longer merge). */
export function dropItems(state: BisectState, items: readonly number[]): BisectState {
  if (items.length === 0) return state;
  const gone = new Set(items);
  const groups = state.groups.map((g) => ({ ...g, items: g.items.filter((i) => !gone.has(i)) }));
  const suspect = state.suspect !== null && gone.has(state.suspect.item) ? null : state.suspect;
  return { ...state, removed: state.removed + gone.size, groups, suspect };
}
