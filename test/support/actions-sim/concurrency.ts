/**
 * Concurrency groups as GitHub runs them: one job (or run) of a group at a time. By default a
 * group keeps one pending entry and a newer one cancels the older pending one; with
 * `queue: max` every pending entry waits its turn in order. `cancel-in-progress` cancels the
 * running entry when a new one arrives.
 */

export interface GroupPolicy {
  readonly queueMax: boolean;
  readonly cancelInProgress: boolean;
}

export interface GroupMember {
  /** Called when a newer member cancels this one while it runs. */
  cancel(): void;
}

interface Group {
  running: GroupMember | null;
  readonly pending: { readonly member: GroupMember; readonly admit: (admitted: boolean) => void }[];
}

export interface ConcurrencyGroups {
  /** Resolves true when `member` may run, false when it was cancelled while pending. */
  acquire(group: string, policy: GroupPolicy, member: GroupMember): Promise<boolean>;
  release(group: string, member: GroupMember): void;
}

export function createConcurrencyGroups(): ConcurrencyGroups {
  const groups = new Map<string, Group>();
  const groupOf = (name: string): Group => {
    let group = groups.get(name);
    if (group === undefined) groups.set(name, (group = { running: null, pending: [] }));
    return group;
  };

  return {
    acquire(name, policy, member) {
      const group = groupOf(name);
      if (group.running === null && group.pending.length === 0) {
        group.running = member;
        return Promise.resolve(true);
      }
      if (policy.cancelInProgress) group.running?.cancel();
      if (!policy.queueMax) {
        for (const older of group.pending.splice(0)) older.admit(false);
      }
      return new Promise((resolve) => group.pending.push({ member, admit: resolve }));
    },
    release(name, member) {
      const group = groupOf(name);
      if (group.running !== member) return;
      const next = group.pending.shift();
      group.running = next?.member ?? null;
      next?.admit(true);
    },
  };
}
