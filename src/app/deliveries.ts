/**
 * Webhooks answered at once (README, "Development": "acknowledges within 1 s"): a verified delivery is
 * taken here, answered 202, and handled after the answer. GitHub waits at most 10 s for an
 * answer, and a command's work is a dozen or more sequential requests; under a burst of
 * deliveries the answers would otherwise wait for all of them.
 *
 * A delivery id already taken by this process (still being handled, or handled without error)
 * is not handled again: GitHub's redelivery, or a proxy's retry, costs nothing. One that failed
 * is forgotten, so that redelivering it (GitHub's "Redeliver" button, or its API) runs it again.
 * Other processes (replicas) may still receive the same delivery: every handler is safe to run
 * twice because the state it acts on is in the repository (docs/architecture.md), not here.
 *
 * What a crash between the answer and the end of the work loses is what a lost delivery loses:
 * the sweep reconciles missions with their runs, and the next event of a mission renders it.
 */
export interface DeliveryQueue {
  /** Starts handling a delivery unless this process already has it: "accepted" or "duplicate". */
  take(id: string, handle: () => Promise<void>): "accepted" | "duplicate";
  /** How many deliveries are being handled now. */
  inFlight(): number;
  /** Resolves once nothing is being handled (at once when nothing is), or after `timeoutMs`: whether it drained. */
  drained(timeoutMs?: number): Promise<boolean>;
}

export interface DeliveryQueueOptions {
  /** Told about a delivery whose handling failed (it is then forgotten, so a redelivery runs it). */
  readonly onError: (id: string, error: unknown) => void;
  /** How many handled delivery ids to remember (the oldest are forgotten first). */
  readonly remember?: number;
  /**
   * How many deliveries are handled at once (default 4); the others wait their turn. Handling
   * is mostly waiting for GitHub, but each has CPU bursts too, and a hundred at once would keep
   * the event loop from reading and answering the deliveries still arriving.
   */
  readonly concurrency?: number;
}

export function createDeliveryQueue(options: DeliveryQueueOptions): DeliveryQueue {
  const remember = options.remember ?? 10_000;
  const concurrency = Math.max(1, options.concurrency ?? 4);
  let active = 0;
  const waiting: (() => void)[] = [];
  // A turn is taken after the answer is written (setImmediate runs after pending I/O).
  const turn = () =>
    new Promise<void>((resolve) => {
      setImmediate(() => {
        if (active < concurrency) {
          active += 1;
          resolve();
        } else waiting.push(resolve);
      });
    });
  const done = () => {
    const next = waiting.shift();
    if (next !== undefined) next();
    else active -= 1;
  };
  // Insertion-ordered: the first key is the oldest. Running and handled ids alike.
  const seen = new Set<string>();
  const running = new Set<Promise<void>>();
  let waiters: (() => void)[] = [];

  const settle = () => {
    if (running.size > 0) return;
    const wake = waiters;
    waiters = [];
    for (const w of wake) w();
  };

  return {
    take(id, handle) {
      if (seen.has(id)) return "duplicate";
      seen.add(id);
      while (seen.size > remember) {
        const oldest = seen.values().next().value;
        if (oldest === undefined) break;
        seen.delete(oldest);
      }
      const work: Promise<void> = turn()
        .then(() => handle().finally(done))
        .catch((error: unknown) => {
          seen.delete(id);
          options.onError(id, error);
        })
        .finally(() => {
          running.delete(work);
          settle();
        });
      running.add(work);
      return "accepted";
    },
    inFlight: () => running.size,
    drained(timeoutMs = Number.POSITIVE_INFINITY) {
      if (running.size === 0) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const timer = Number.isFinite(timeoutMs) ? setTimeout(() => resolve(false), timeoutMs) : null;
        timer?.unref();
        waiters.push(() => {
          if (timer !== null) clearTimeout(timer);
          resolve(true);
        });
      });
    },
  };
}
