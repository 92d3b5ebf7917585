/**
 * Concurrency groups as GitHub runs them: one job (or run) of a group at a time. By default a
 * group keeps one pending entry and a newer one cancels the older pending one; with
 * `queue: max` pending entries wait their turn in order, at most {@link MAX_PENDING} of them:
 * "`max`: Up to 100 jobs or workflow runs can be `pending` in the concurrency group. When the
 * queue is full, any additional jobs or workflow runs are canceled." (docs.github.com, Actions,
 * "Control the concurrency of workflows and jobs"; changelog 2026-05-07, "GitHub Actions
 * concurrency groups now allow larger queues"). So the 101st is the one cancelled, the oldest
 * pending ones keep their places. `cancel-in-progress` cancels the running entry when a new one
 * arrives (GitHub refuses it together with `queue: max`).
 */

/** Pending entries a `queue: max` group holds (GitHub's documented cap). */
export const MAX_PENDING = 100;

export interface GroupPolicy {
  readonly queueMax: boolean;
  readonly cancelInProgress: boolean;
}

export interface GroupMember {
  /** Called when a newer member cancels this one while it runs. */
  cancel(): void;
}

/** What became of a member that asked to join: it ran, or it was cancelled while pending and why. */
export type Admission = "admitted" | "replaced" | "queue-full";

interface Group {
  running: GroupMember | null;
  readonly pending: { readonly member: GroupMember; readonly admit: (admission: Admission) => void }[];
}

export interface ConcurrencyGroups {
  /** Resolves "admitted" when `member` may run; else it was cancelled: replaced by a newer one, or refused by a full queue. */
  acquire(group: string, policy: GroupPolicy, member: GroupMember): Promise<Admission>;
  release(group: string, member: GroupMember): void;
  /** Members waiting in `group` now. */
  pending(group: string): number;
}

export function createConcurrencyGroups(): ConcurrencyGroups {
  const groups = new Map<string, Group>();
  // GitHub compares group names without case ("prod" and "Prod" are one group).
  const groupOf = (name: string): Group => {
    const key = name.toLowerCase();
    let group = groups.get(key);
    if (group === undefined) groups.set(key, (group = { running: null, pending: [] }));
    return group;
  };

  return {
    acquire(name, policy, member) {
      const group = groupOf(name);
      if (group.running === null && group.pending.length === 0) {
        group.running = member;
        return Promise.resolve("admitted");
      }
      if (policy.cancelInProgress) group.running?.cancel();
      if (!policy.queueMax) {
        for (const older of group.pending.splice(0)) older.admit("replaced");
      } else if (group.pending.length >= MAX_PENDING) {
        return Promise.resolve("queue-full");
      }
      return new Promise((resolve) => group.pending.push({ member, admit: resolve }));
    },
    release(name, member) {
      const group = groupOf(name);
      if (group.running !== member) return;
      const next = group.pending.shift();
      group.running = next?.member ?? null;
      next?.admit("admitted");
    },
    pending: (name) => groupOf(name).pending.length,
  };
}
