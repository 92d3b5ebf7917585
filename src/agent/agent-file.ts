/**
 * Reading a file an agent wrote (its result file, the planner's plan): naruto runs as the user,
 * the agent's file is the agent's choice, so the file is opened without following a symlink
 * (a link to `~/.ssh/id_rsa` must not become the plan), without blocking (a FIFO must not stall
 * naruto), and only when it is a regular file within the size limit.
 */
import { constants } from "node:fs";
import { open } from "node:fs/promises";

export async function readAgentFile(path: string, what: string, limit: number): Promise<{ text: string | null; notes: string[] }> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { text: null, notes: code === "ELOOP" ? [`the ${what} is a symlink; ignored`] : [] };
  }
  try {
    if (!(await handle.stat()).isFile()) return { text: null, notes: [`the ${what} is not a regular file; ignored`] };
    const buffer = Buffer.alloc(limit + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > limit) return { text: null, notes: [`the ${what} is larger than ${limit} bytes; ignored`] };
    return { text: buffer.subarray(0, bytesRead).toString("utf8"), notes: [] };
  } catch (error) {
    return { text: null, notes: [`the ${what} could not be read: ${error instanceof Error ? error.message : String(error)}`] };
  } finally {
    await handle.close();
  }
}
