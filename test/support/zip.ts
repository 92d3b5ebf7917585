/**
 * Writes zip archives for tests: what actions/upload-artifact makes of a folder (deflated regular
 * files), and what a hostile uploader can make that upload-artifact never does — a name with
 * `../`, a symbolic link, a folder, a size that lies. Made on "Unix" (version made by 3.x), so the
 * upper half of the external attributes is the entry's mode.
 */
import { crc32, deflateRawSync } from "node:zlib";

export interface ZipInput {
  readonly name: string;
  /** The content (a link's target for a symbolic link). */
  readonly data: Buffer | string;
  /** Unix mode with its type bits; default a regular file, 0644. */
  readonly mode?: number;
  /** Default deflate (8); 0 stores. */
  readonly method?: 0 | 8;
  /** The uncompressed size the archive claims (default the real one). */
  readonly declaredSize?: number;
}

export const S_IFREG = 0o100000;
export const S_IFLNK = 0o120000;
export const S_IFDIR = 0o040000;

export function writeZip(entries: readonly ZipInput[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const data = Buffer.isBuffer(e.data) ? e.data : Buffer.from(e.data, "utf8");
    const method = e.method ?? 8;
    const stored = method === 8 ? deflateRawSync(data) : data;
    const name = Buffer.from(e.name, "utf8");
    const size = e.declaredSize ?? data.length;
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(stored.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, stored);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(stored.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((e.mode ?? S_IFREG | 0o644) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + stored.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
