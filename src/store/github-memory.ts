/**
 * What one GitHub mission store has seen, so that many writers in one process (the App under a
 * burst of webhooks) do not spend API calls on saves that cannot win. Versions only move
 * forward (non-forced moves, unique commits), so a version that this process saw replaced will
 * never be current again: a save based on it is a conflict without asking GitHub.
 * GitHub stays the only authority: nothing here ever turns a conflict into a success.
 */
export interface MissionMemory {
  /** What is stored at `version`, when this process wrote or read it (the last version per mission). */
  stored(id: string, version: string): StoredFiles | undefined;
  remember(id: string, version: string, stored: StoredFiles): void;
  /** Records that `version` was replaced (the parent of a save of ours that won). */
  retire(version: string): void;
  /** True when `version` is known to have been replaced. */
  isStale(version: string): boolean;
  /** Runs `task` after every earlier task for `id`, one at a time. */
  serial<T>(id: string, task: () => Promise<T>): Promise<T>;
  /** Shares one in-flight read of `id` among the callers that ask while it runs. */
  shared<T>(id: string, read: () => Promise<T>): Promise<T>;
}

/** A stored version's tree and its record files, path → text (src/mission/records.ts). */
export interface StoredFiles {
  readonly tree: string;
  readonly files: ReadonlyMap<string, string>;
}

export function createMissionMemory(): MissionMemory {
  const versions = new Map<string, { version: string; stored: StoredFiles }>();
  const stale = new Set<string>();
  const queues = new Map<string, Promise<unknown>>();
  const reads = new Map<string, Promise<unknown>>();

  return {
    stored: (id, version) => {
      const known = versions.get(id);
      return known?.version === version ? known.stored : undefined;
    },
    remember: (id, version, stored) => {
      if (!stale.has(version)) versions.set(id, { version, stored });
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
