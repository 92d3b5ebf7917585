/**
 * Starting agents comes before checking finished ones. When an agent exits, its slot goes to the
 * next item (`agent_exited`); what naruto then does with the finished attempt (its snapshot, scope
 * check and checkpoint: several git processes) would compete with that start for the same cores
 * and the same thread, and the next agent would wait for it. So the finished attempt's checks wait
 * for the starts its exit made room for: those the driver dispatched when it applied the
 * `agent_exited`, until each has its work directory. Only those: a start dispatched later does not
 * hold it, so no check waits for long, however many items follow.
 */
export interface StartsFirst {
  /**
   * An agent exited (`key`: its attempt): resolves once its `agent_exited` has been applied and
   * the starts dispatched with it have their work directories. Asked before the event is sent.
   */
  roomMade(key: string): Promise<void>;
  /**
   * Dispatches what applying events commanded (`dispatch`, which calls {@link StartsFirst.begin}
   * for each start): those starts are the ones the exits among the events (`exits`) made room for.
   */
  dispatching(exits: readonly string[], dispatch: () => void): void;
  /** Ends the wait of `exits` whose events were not applied (refused): they made room for nothing. */
  settle(exits: readonly string[]): void;
  /** A start: the returned function is called once its work directory is made, or it ended (again: nothing). */
  begin(): () => void;
  /** Ends every wait (the drive is over). */
  release(): void;
}

export function createStartsFirst(): StartsFirst {
  const waiting = new Map<string, () => void>();
  let released = false;
  /** The starts begun by the dispatch under way; null: none is. */
  let dispatched: Promise<void>[] | null = null;
  const settle = (exits: readonly string[], starts: readonly Promise<void>[]) => {
    for (const key of exits) {
      const resume = waiting.get(key);
      waiting.delete(key);
      if (resume) void Promise.all(starts).then(resume);
    }
  };
  return {
    roomMade(key) {
      if (released) return Promise.resolve();
      return new Promise((resolve) => waiting.set(key, resolve));
    },
    dispatching(exits, dispatch) {
      const starts: Promise<void>[] = [];
      dispatched = starts;
      try {
        dispatch();
      } finally {
        dispatched = null;
        settle(exits, starts);
      }
    },
    settle(exits) {
      settle(exits, []);
    },
    begin() {
      let end: () => void = () => undefined;
      const started = new Promise<void>((resolve) => (end = resolve));
      dispatched?.push(started);
      return end;
    },
    release() {
      released = true;
      for (const resume of waiting.values()) resume();
      waiting.clear();
    },
  };
}
