/**
 * Taking over a lock file whose holder is gone, safely when several processes find it at once.
 * Each would judge the lock stale and remove it, and the slower one would then remove the lock
 * the quicker one had just taken in its place: both would hold it. So the lock is judged and
 * removed by one process at a time, the one that created `<lock>.takeover` (exclusively); the
 * others try again. A `.takeover` file left by a process that died while judging is removed
 * once it is older than {@link TAKEOVER_STALE_MS} (judging takes milliseconds).
 */
import { open, rm, stat } from "node:fs/promises";

export const TAKEOVER_STALE_MS = 10_000;

/**
 * Removes the lock file `path` when `stale()`, asked while no other process judges it, says it
 * is stale. Returns whether it was removed; false also while another process judges it.
 */
export async function removeIfStale(path: string, stale: () => Promise<boolean>): Promise<boolean> {
  const judge = `${path}.takeover`;
  try {
    await (await open(judge, "wx")).close();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const info = await stat(judge).catch(() => null);
    if (info !== null && Date.now() - info.mtimeMs > TAKEOVER_STALE_MS) await rm(judge, { force: true });
    return false;
  }
  try {
    if (!(await stale())) return false;
    await rm(path, { force: true });
    return true;
  } finally {
    await rm(judge, { force: true });
  }
}
