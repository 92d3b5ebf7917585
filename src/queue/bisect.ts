/**
 * Which checkpoints of a red batch to verify next: a pure state machine, no git.
 *
 * The batch is a list of groups resolved front to back. The front group is verified on top of
 * everything accepted so far; green accepts it, red splits it in halves. A group is known red
 * without a run when it is the second half of a red group and nothing was removed from the first
 * half: its candidate is then exactly the red one. With k culprits among n checkpoints this
 * costs at most about 2·k·log2(n) + 1 runs; with none, one run.
 *
 * The driver loops: `nextBisectStep` → verify `step.items` (built on the accepted ones) →
 * `recordVerify` → … until the step is `done`.
 */

interface Group {
  readonly items: readonly number[];
  /** Known red while `removed` still has this value (see above). */
  readonly redWhileRemoved?: number;
}

export interface BisectState {
  /** Accepted checkpoints, in order: the next candidate is built on top of them. */
  readonly accepted: readonly number[];
  /** Checkpoints isolated as failing verification. */
  readonly failed: readonly number[];
  /** How many checkpoints left the batch (failed, or dropped by the driver). */
  readonly removed: number;
  readonly groups: readonly Group[];
}

export type BisectStep = { readonly kind: "verify"; readonly items: readonly number[] } | { readonly kind: "done" };

export function startBisect(items: readonly number[]): BisectState {
  return { accepted: [], failed: [], removed: 0, groups: items.length > 0 ? [{ items }] : [] };
}

const isKnownRed = (state: BisectState, group: Group) => group.redWhileRemoved === state.removed;

/** Resolves what needs no run (empty groups, known-red singletons and splits), then says what to verify. */
export function nextBisectStep(state: BisectState): { state: BisectState; step: BisectStep } {
  let s = state;
  for (;;) {
    const [group, ...rest] = s.groups;
    if (!group) return { state: s, step: { kind: "done" } };
    if (group.items.length === 0) {
      s = { ...s, groups: rest };
    } else if (!isKnownRed(s, group)) {
      return { state: s, step: { kind: "verify", items: group.items } };
    } else if (group.items.length === 1) {
      s = { ...s, failed: [...s.failed, ...group.items], removed: s.removed + 1, groups: rest };
    } else {
      const half = Math.ceil(group.items.length / 2);
      const first: Group = { items: group.items.slice(0, half) };
      const second: Group = { items: group.items.slice(half), redWhileRemoved: s.removed };
      s = { ...s, groups: [first, second, ...rest] };
    }
  }
}

/** Records the verdict on the front group (the last `verify` step). */
export function recordVerify(state: BisectState, green: boolean): BisectState {
  const [group, ...rest] = state.groups;
  if (!group) return state;
  if (green) return { ...state, accepted: [...state.accepted, ...group.items], groups: rest };
  return { ...state, groups: [{ items: group.items, redWhileRemoved: state.removed }, ...rest] };
}

/** Takes checkpoints out of the batch for another reason (e.g. they no longer merge). */
export function dropItems(state: BisectState, items: readonly number[]): BisectState {
  if (items.length === 0) return state;
  const gone = new Set(items);
  const groups = state.groups.map((g) => ({ ...g, items: g.items.filter((i) => !gone.has(i)) }));
  return { ...state, removed: state.removed + gone.size, groups };
}
