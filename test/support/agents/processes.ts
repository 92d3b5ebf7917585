import { readFile } from "node:fs/promises";

/**
 * Whether a process still runs. A zombie (exited, not yet reaped — common in containers whose
 * init does not reap) counts as gone: it runs no code and holds no files.
 */
export async function isAlive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => null);
  // Field 3, after the parenthesized command name, is the state; Z is a zombie, X dead.
  const state = stat?.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state !== "Z" && state !== "X";
}

/** Waits until the process is gone; false if it still runs after `limitMs` (a generous bound). */
export async function waitUntilGone(pid: number, limitMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    if (!(await isAlive(pid))) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return !(await isAlive(pid));
}

/** Waits for a file to appear with content; null after `limitMs`. */
export async function waitForFile(path: string, limitMs = 20_000): Promise<string | null> {
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    const text = await readFile(path, "utf8").catch(() => "");
    if (text !== "") return text;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return null;
}
