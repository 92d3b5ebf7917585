/**
 * The file system a folder is on, for reading `bench local`'s CPU figures: Linux's mount table,
 * and for ext4 whether it has a journal. Without one (this project's CI machine: the disk of its
 * temporary folder), ext4 will not reuse an inode freed less than 60 s ago (360 s while its
 * inode table block is unwritten), and looks at each such inode before it hands out a new one
 * (`recently_deleted` in fs/ext4/ialloc.c): each file or folder made after many were deleted
 * costs hundreds of microseconds of kernel time instead of a few, and a mission makes and
 * deletes a work directory per attempt. Elsewhere: "unknown".
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";

export function fileSystemOf(path: string): string {
  try {
    const absolute = resolve(path);
    let best: { point: string; type: string; source: string } | null = null;
    for (const line of readFileSync("/proc/self/mountinfo", "utf8").split("\n")) {
      // id parent major:minor root point options [optional…] - type source super-options
      const fields = line.split(" ");
      const dash = fields.indexOf("-");
      const point = (fields[4] ?? "").replace(/\\040/g, " ");
      if (dash < 0 || !(absolute === point || absolute.startsWith(point.endsWith("/") ? point : `${point}/`))) continue;
      if (best === null || point.length >= best.point.length) best = { point, type: fields[dash + 1] ?? "?", source: fields[dash + 2] ?? "?" };
    }
    if (best === null) return "unknown";
    if (best.type !== "ext4") return `${best.type} (${best.point})`;
    const journal = readFileSync(`/sys/fs/ext4/${basename(best.source)}/journal_task`, "utf8").trim();
    return `ext4 on ${best.source} (${best.point}), ${journal === "<none>" ? "without a journal" : "with a journal"}`;
  } catch {
    return "unknown";
  }
}

/**
 * What making one empty file costs in a new folder under `parent` right now: CPU microseconds
 * (this process's, kernel time included), over 200 files, removed after. On the machine of the
 * header: about 30 in a folder of a little-used part of the disk, 90 to 900 under /tmp, the more
 * the more files tests had just deleted there. A trivial item makes about 110 files and folders
 * (counted with strace: naruto's records and work directory, git's objects and locks, the
 * agent's file), so `bench local`'s CPU per item moves with it.
 */
export function fileCreateMicros(parent: string): number {
  const folder = mkdtempSync(join(parent, "file-cost-"));
  try {
    const before = process.cpuUsage();
    for (let i = 0; i < 200; i++) writeFileSync(join(folder, `f${i}`), "");
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 200;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
