/**
 * What one GitHub mission store has seen, so that many writers in one process (the App under a
 * burst of webhooks) do not spend API calls on saves that cannot win. Versions only move
 * forward (non-forced moves, unique commits), so a version that this process saw replaced will
 * never be current again: a save based on it is a conflict without asking GitHub.
 * GitHub stays the only authority: nothing here ever turns a conflict into a success.
 */
export interface MissionMemory {
  /** The text stored at `version`, when this process wrote or read it. */
  text(id: string, version: string): string | undefined;
  remember(id: string, version: string, text: string): void;
  /** Records that `version` was replaced (the parent of a save of ours that won). */
  retire(version: string): void;
  /** True when `version` is known to have been replaced. */
  isStale(version: string): boolean;
  /** Runs `task` after every earlier task for `id`, one at a time. */
  serial<T>(id: string, task: () => Promise<T>): Promise<T>;
  /** Shares one in-flight read of `id` among the callers that ask while it runs. */
  shared<T>(id: string, read: () => Promise<T>): Promise<T>;
}

export function createMissionMemory(): MissionMemory {
  const texts = new Map<string, { version: string; text: string }>();
  const stale = new Set<string>();
  const queues = new Map<string, Promise<unknown>>();
  const reads = new Map<string, Promise<unknown>>();

  return {
    text: (id, version) => {
      const known = texts.get(id);
      return known?.version === version ? known.text : undefined;
    },
    remember: (id, version, text) => {
      if (!stale.has(version)) texts.set(id, { version, text });
    },
    retire: (version) => {
      stale.add(version);
    },
    isStale: (version) => stale.has(version),
    serial: (id, task) => {
      const run = (queues.get(id) ?? Promise.resolve()).then(task);
      const tail = run.catch(() => undefined);
      queues.set(id, tail);
      void tail.then(() => {
        if (queues.get(id) === tail) queues.delete(id);
      });
      return run;
    },
    shared: <T>(id: string, read: () => Promise<T>): Promise<T> => {
      const running = reads.get(id) as Promise<T> | undefined;
      if (running) return running;
      const started = read().finally(() => reads.delete(id));
      reads.set(id, started);
      return started;
    },
  };
}
