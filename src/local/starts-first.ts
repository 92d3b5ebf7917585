/**
 * Starting agents comes before checking finished ones. When an agent exits, its slot goes to the
 * next item (`agent_exited`); what naruto then does with the finished attempt (its snapshot, scope
 * check and checkpoint: several git processes) would compete with that start for the same cores
 * and the same thread, and the next agent would wait for it. So the finished attempt's checks wait
 * while a start is under way: from an `agent_exited` the driver has not applied yet (it may start
 * the next item) to the moment each attempt it started has its work directory. Starts never wait
 * for checks, so the wait always ends; the checks then run while the new agents work.
 */
export interface StartsFirst {
  /** A start is under way until the returned function is called (calling it again does nothing). */
  begin(): () => void;
  /** Resolves once no start is under way. */
  idle(): Promise<void>;
  /** Ends every start under way and every wait (the drive is over). */
  release(): void;
}

export function createStartsFirst(): StartsFirst {
  let under = 0;
  let released = false;
  let waiters: (() => void)[] = [];
  const wake = () => {
    if (under > 0 && !released) return;
    const woken = waiters;
    waiters = [];
    for (const w of woken) w();
  };
  return {
    begin() {
      if (released) return () => undefined;
      under++;
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        under--;
        wake();
      };
    },
    idle() {
      if (under === 0 || released) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
    release() {
      released = true;
      wake();
    },
  };
}
