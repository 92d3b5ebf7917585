/**
 * An index file written byte for byte (format version 2), holding paths git's own commands
 * refuse to stage (`.GIT/x`, `git~1`): what an agent could write into its `.git/index` by hand.
 */
import { createHash } from "node:crypto";
import { writeFile } from "node:fs/promises";

export interface ForgedIndexEntry {
  readonly path: string;
  /** 0o100644, 0o160000, … */
  readonly mode: number;
  /** 40 hex digits. */
  readonly oid: string;
}

export async function writeForgedIndex(file: string, entries: readonly ForgedIndexEntry[]): Promise<void> {
  const sorted = [...entries].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
  const header = Buffer.alloc(12);
  header.write("DIRC", 0, "latin1");
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(sorted.length, 8);
  const parts = [header];
  for (const e of sorted) {
    const name = Buffer.from(e.path);
    const fixed = Buffer.alloc(62);
    fixed.writeUInt32BE(e.mode, 24);
    Buffer.from(e.oid, "hex").copy(fixed, 40);
    fixed.writeUInt16BE(Math.min(name.length, 0xfff), 60);
    // The entry is padded with 1 to 8 NULs to a multiple of 8 bytes.
    const padding = 8 - ((62 + name.length) % 8);
    parts.push(fixed, name, Buffer.alloc(padding));
  }
  const body = Buffer.concat(parts);
  await writeFile(file, Buffer.concat([body, createHash("sha1").update(body).digest()]));
}
