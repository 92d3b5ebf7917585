/**
 * Opening a file where an agent could have been (docs/architecture.md, "naruto's own I/O is outside the
 * wall"). naruto runs as the user (or root); what lies at a path an agent could write is the
 * agent's choice, so such a path is opened without following a symlink (a link to `~/.ssh/id_rsa`
 * must not become the plan, a link to `~/.bashrc` must not take naruto's log), without blocking
 * (a named pipe must not stall naruto in open(2)), and read only when it is a regular file within
 * a size limit. Either way, what is wrong is an answer, never an exception: the attempt fails or
 * notes it with a reason, and its work is kept.
 */
import { constants } from "node:fs";
import { mkdir, open } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * Reads a file an agent wrote (its result file, the planner's plan): its text, or null with a
 * note of why not (a missing file is no note).
 *
 * @example readAgentFile(resultFile, "result file", 1024 * 1024) → { text: '{"summary":"done"}', notes: [] }
 */
export async function readAgentFile(path: string | Buffer, what: string, limit: number): Promise<{ text: string | null; notes: string[] }> {
  const read = await readUntrusted(path, limit);
  switch (read.kind) {
    case "ok":
      return { text: read.bytes.toString("utf8"), notes: [] };
    case "absent":
      return { text: null, notes: [] };
    case "symlink":
      return { text: null, notes: [`the ${what} is a symlink; ignored`] };
    case "not_a_file":
      return { text: null, notes: [`the ${what} is not a regular file; ignored`] };
    case "too_large":
      return { text: null, notes: [`the ${what} is larger than ${limit} bytes; ignored`] };
    case "failed":
      return { text: null, notes: [`the ${what} could not be read: ${read.reason}`] };
  }
}

export type UntrustedRead =
  | { readonly kind: "ok"; readonly bytes: Buffer }
  | { readonly kind: "absent" | "symlink" | "not_a_file" | "too_large" }
  | { readonly kind: "failed"; readonly reason: string };

/** The bytes of a regular file of at most `limit` bytes at `path`, opened with `O_NOFOLLOW|O_NONBLOCK`. */
export async function readUntrusted(path: string | Buffer, limit: number): Promise<UntrustedRead> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "absent" };
    if (code === "ELOOP") return { kind: "symlink" };
    // A socket (ENXIO), a device that refused (EACCES, EPERM): not a file of naruto's to read.
    return { kind: "failed", reason: error instanceof Error ? error.message : String(error) };
  }
  try {
    if (!(await handle.stat()).isFile()) return { kind: "not_a_file" };
    const buffer = Buffer.alloc(Math.min(limit, 64 * 1024 * 1024) + 1);
    let size = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, size, buffer.length - size, size);
      if (bytesRead === 0) break;
      size += bytesRead;
      if (size > limit) return { kind: "too_large" };
    }
    return { kind: "ok", bytes: buffer.subarray(0, size) };
  } catch (error) {
    return { kind: "failed", reason: error instanceof Error ? error.message : String(error) };
  } finally {
    await handle.close();
  }
}

/**
 * Writes one of naruto's own files (a record of an attempt: its prompt, output log, result) where
 * an agent without the sandbox could have put something first: the folders are made, the file is
 * opened with `O_NOFOLLOW|O_NONBLOCK` (a link or a pipe there is an error, never a write through
 * it or a wait), created or truncated.
 */
export async function writeOwnFile(path: string, data: string | Buffer): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o644);
  try {
    if (!(await handle.stat()).isFile()) throw Object.assign(new Error(`${path} is not a regular file`), { code: "EINVAL" });
    await handle.writeFile(data);
  } finally {
    await handle.close();
  }
}
