/**
 * The file system a folder is on, for reading `bench local`'s CPU figures: Linux's mount table,
 * and for ext4 whether it has a journal. Without one (this project's CI machine: the disk of its
 * temporary folder), ext4 will not reuse an inode freed less than 60 s ago (360 s while its
 * inode table block is unwritten), and looks at each such inode before it hands out a new one
 * (`recently_deleted` in fs/ext4/ialloc.c): each file or folder made after many were deleted
 * costs hundreds of microseconds of kernel time instead of a few, and a mission makes and
 * deletes a work directory per attempt. Elsewhere: "unknown".
 */
import { readFileSync } from "node:fs";
import { basename, resolve } from "node:path";

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
