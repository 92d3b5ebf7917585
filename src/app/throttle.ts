/**
 * At most one render per key per interval, and never a lost last word: a request inside the
 * interval schedules one trailing render at its end (later requests join it). Safe to lose on a
 * restart: every render reads the mission state afresh, so the next one repairs anything skipped.
 */
export interface Throttle {
  /**
   * Runs `render` now (and waits for it: a serverless host may freeze work left after the
   * answer), or once at the end of the key's interval ("later"; later requests "join" it).
   */
  request(key: string, render: () => Promise<void>): Promise<"now" | "later" | "joined">;
  /** Drops the pending renders (shutdown, tests). */
  close(): void;
}

export function createThrottle(input: { intervalMs: number; now: () => number; onError: (error: unknown) => void }): Throttle {
  const last = new Map<string, number>();
  const pending = new Map<string, { timer: ReturnType<typeof setTimeout>; render: () => Promise<void> }>();
  const run = (key: string, render: () => Promise<void>) => {
    last.set(key, input.now());
    return render();
  };
  return {
    async request(key, render) {
      const waiting = pending.get(key);
      if (waiting !== undefined) {
        // The newest request's closure renders: it carries the freshest client.
        waiting.render = render;
        return "joined";
      }
      const since = input.now() - (last.get(key) ?? Number.NEGATIVE_INFINITY);
      if (since >= input.intervalMs) {
        await run(key, render);
        return "now";
      }
      const timer = setTimeout(() => {
        const entry = pending.get(key);
        pending.delete(key);
        if (entry !== undefined) run(key, entry.render).catch(input.onError);
      }, input.intervalMs - since);
      // A pending render must not keep a stopping process alive.
      timer.unref();
      pending.set(key, { timer, render });
      return "later";
    },
    close() {
      for (const { timer } of pending.values()) clearTimeout(timer);
      pending.clear();
    },
  };
}
