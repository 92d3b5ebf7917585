/**
 * An agent's combined output kept beside its prompt (`.git/naruto/attempts/<m>/<item>/<n>/
 * output.log`): the last `limit` bytes, written as it comes (at most once a second) so that a
 * run killed halfway still leaves the log up to then.
 */
import { writeOwnFile } from "../sandbox/index.ts";

export const AGENT_LOG_LIMIT = 1024 * 1024;

export interface AgentLog {
  readonly path: string;
  write(chunk: Buffer): void;
  /** Writes what is held and stops. */
  close(): Promise<void>;
}

export function createAgentLog(path: string, options: { limit?: number; intervalMs?: number } = {}): AgentLog {
  const limit = options.limit ?? AGENT_LOG_LIMIT;
  const interval = options.intervalMs ?? 1000;
  let held = Buffer.alloc(0);
  let cut = false;
  let timer: NodeJS.Timeout | null = null;
  let writing: Promise<void> = Promise.resolve();
  const flush = () => {
    timer = null;
    const text = cut ? Buffer.concat([Buffer.from(`[naruto: earlier output cut; the last ${limit} bytes follow]\n`), held]) : held;
    // Never through a link or into a pipe an agent without the sandbox could have put there first.
    writing = writing.then(() => writeOwnFile(path, text)).catch(() => undefined);
  };
  return {
    path,
    write(chunk) {
      held = Buffer.concat([held, chunk]);
      if (held.length > limit) {
        held = held.subarray(held.length - limit);
        cut = true;
      }
      timer ??= setTimeout(flush, interval);
    },
    async close() {
      if (timer) clearTimeout(timer);
      flush();
      await writing;
    },
  };
}
