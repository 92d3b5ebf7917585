/**
 * The driver's inbox: events from workers, the integrator, the reviewer and the clock arrive
 * here in the order they happen, and the driver applies them in that order: what arrived while
 * it was busy, all in one save ({@link Inbox.drain}).
 */
export interface Inbox<T> {
  push(value: T): void;
  /** The next value, waiting for one when the inbox is empty. */
  next(): Promise<T>;
  /** Every value waiting now, oldest first (none: an empty list); the inbox is then empty. */
  drain(): T[];
  readonly size: number;
}

export function createInbox<T>(): Inbox<T> {
  const items: T[] = [];
  let waiter: ((value: T) => void) | null = null;
  return {
    push(value) {
      if (waiter) {
        const w = waiter;
        waiter = null;
        w(value);
      } else {
        items.push(value);
      }
    },
    next() {
      const first = items.shift();
      if (first !== undefined) return Promise.resolve(first);
      return new Promise((resolve) => {
        waiter = resolve;
      });
    },
    drain() {
      return items.splice(0);
    },
    get size() {
      return items.length;
    },
  };
}
