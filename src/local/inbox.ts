/**
 * The driver's inbox: events from workers, the integrator, the reviewer and the clock arrive
 * here in the order they happen, and the driver applies them one at a time.
 */
export interface Inbox<T> {
  push(value: T): void;
  /** The next value, waiting for one when the inbox is empty. */
  next(): Promise<T>;
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
    get size() {
      return items.length;
    },
  };
}
