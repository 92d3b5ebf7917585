/**
 * Reads the zip of a GitHub Actions artifact, as downloaded through the REST API, without
 * touching the disk: the archive is untrusted data (any process holding a job's
 * `ACTIONS_RUNTIME_TOKEN` can upload one), so it is parsed from its central directory, every
 * entry is judged by its name, type and size before a byte of it is inflated, and inflating is
 * capped at the size the entry declares. Only stored and deflated entries are read; encrypted,
 * multi-disk and zip64 archives are refused (an artifact of naruto's is far below 4 GiB).
 */
import { crc32, inflateRawSync } from "node:zlib";

/** One entry as the central directory describes it. */
export interface ZipEntry {
  /** The name as stored (the archive's own bytes, read as UTF-8). */
  readonly name: string;
  readonly kind: "file" | "directory" | "symlink" | "other";
  readonly method: number;
  readonly encrypted: boolean;
  readonly compressedSize: number;
  readonly size: number;
  readonly crc: number;
  /** Where the entry's local header starts. */
  readonly offset: number;
}

/** The archive cannot be read as a zip, or holds what no artifact of naruto's may hold. */
export class ZipFormatError extends Error {
  override readonly name = "ZipFormatError";
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
/** Unix file types in the upper half of the external attributes (when made on Unix). */
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;

/** The entries of `zip` (at most `maxEntries`), from its central directory. */
export function listZipEntries(zip: Uint8Array, maxEntries: number): ZipEntry[] {
  const buf = Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength);
  const end = findEnd(buf);
  if (buf.readUInt16LE(end + 4) !== 0 || buf.readUInt16LE(end + 6) !== 0) throw new ZipFormatError("it spans several disks");
  const count = buf.readUInt16LE(end + 10);
  const size = buf.readUInt32LE(end + 12);
  const start = buf.readUInt32LE(end + 16);
  if (count === 0xffff || size === 0xffffffff || start === 0xffffffff) throw new ZipFormatError("it is a zip64 archive");
  if (count > maxEntries) throw new ZipFormatError(`it has ${count} entries, more than the ${maxEntries} an artifact of naruto's may have`);
  if (start + size > end) throw new ZipFormatError("its central directory lies outside the archive");
  const entries: ZipEntry[] = [];
  let at = start;
  for (let i = 0; i < count; i++) {
    if (at + 46 > end || buf.readUInt32LE(at) !== CENTRAL) throw new ZipFormatError(`its central directory entry ${i + 1} is damaged`);
    const madeBy = buf.readUInt16LE(at + 4);
    const flags = buf.readUInt16LE(at + 8);
    const method = buf.readUInt16LE(at + 10);
    const crc = buf.readUInt32LE(at + 16);
    const compressedSize = buf.readUInt32LE(at + 20);
    const uncompressed = buf.readUInt32LE(at + 24);
    const nameLength = buf.readUInt16LE(at + 28);
    const extraLength = buf.readUInt16LE(at + 30);
    const commentLength = buf.readUInt16LE(at + 32);
    const external = buf.readUInt32LE(at + 38);
    const offset = buf.readUInt32LE(at + 42);
    if (compressedSize === 0xffffffff || uncompressed === 0xffffffff || offset === 0xffffffff) throw new ZipFormatError("it has zip64 entries");
    const next = at + 46 + nameLength + extraLength + commentLength;
    if (next > end) throw new ZipFormatError(`its central directory entry ${i + 1} is damaged`);
    const name = buf.subarray(at + 46, at + 46 + nameLength).toString("utf8");
    entries.push({ name, kind: kindOf(name, madeBy, external), method, encrypted: (flags & 1) !== 0, compressedSize, size: uncompressed, crc, offset });
    at = next;
  }
  return entries;
}

function kindOf(name: string, madeBy: number, external: number): ZipEntry["kind"] {
  const unix = madeBy >> 8 === 3;
  const type = (external >>> 16) & S_IFMT;
  if (unix && type === S_IFLNK) return "symlink";
  if (name.endsWith("/") || (unix && type === S_IFDIR) || (external & 0x10) !== 0) return "directory";
  if (unix && type !== 0 && type !== S_IFREG) return "other";
  return "file";
}

/** The end-of-central-directory record: the last 22 bytes, or earlier behind a comment. */
function findEnd(buf: Buffer): number {
  if (buf.length < 22) throw new ZipFormatError("it is not a zip archive (too short)");
  const lowest = Math.max(0, buf.length - 22 - 0xffff);
  for (let at = buf.length - 22; at >= lowest; at--) {
    if (buf.readUInt32LE(at) === EOCD && at + 22 + buf.readUInt16LE(at + 20) === buf.length) return at;
  }
  throw new ZipFormatError("it is not a zip archive (no end of central directory)");
}

/**
 * The content of one file entry: inflated at most to its declared size, and checked against
 * that size and its CRC-32.
 */
export function readZipEntry(zip: Uint8Array, entry: ZipEntry): Buffer {
  const buf = Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength);
  if (entry.kind !== "file") throw new ZipFormatError(`${entry.name} is not a file`);
  if (entry.encrypted) throw new ZipFormatError(`${entry.name} is encrypted`);
  const at = entry.offset;
  if (at + 30 > buf.length || buf.readUInt32LE(at) !== LOCAL) throw new ZipFormatError(`${entry.name}: its local header is damaged`);
  const start = at + 30 + buf.readUInt16LE(at + 26) + buf.readUInt16LE(at + 28);
  if (start + entry.compressedSize > buf.length) throw new ZipFormatError(`${entry.name}: its data lies outside the archive`);
  const data = buf.subarray(start, start + entry.compressedSize);
  let content: Buffer;
  if (entry.method === 0) content = Buffer.from(data);
  else if (entry.method === 8) {
    try {
      content = inflateRawSync(data, { maxOutputLength: Math.max(entry.size, 1) });
    } catch (error) {
      const why = (error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE" ? "it inflates to more than its declared size" : "it does not inflate";
      throw new ZipFormatError(`${entry.name}: ${why}`);
    }
  } else throw new ZipFormatError(`${entry.name} uses compression method ${entry.method}, not stored or deflated`);
  if (content.length !== entry.size) throw new ZipFormatError(`${entry.name}: it holds ${content.length} bytes, not the ${entry.size} it declares`);
  if (crc32(content) !== entry.crc) throw new ZipFormatError(`${entry.name}: its CRC-32 does not match`);
  return content;
}
