import { describe, expect, it } from "vitest";
import { S_IFDIR, S_IFLNK, writeZip } from "../../test/support/zip.ts";
import { listZipEntries, readZipEntry, ZipFormatError } from "./artifact-zip.ts";

describe("listZipEntries and readZipEntry", () => {
  it("read what upload-artifact makes: deflated and stored regular files", () => {
    const zip = writeZip([
      { name: "result.json", data: '{"ok":true}\n' },
      { name: "checkpoint.bundle", data: Buffer.alloc(3000, 7), method: 0 },
    ]);
    const entries = listZipEntries(zip, 8);
    expect(entries.map((e) => [e.name, e.kind, e.size])).toEqual([
      ["result.json", "file", 12],
      ["checkpoint.bundle", "file", 3000],
    ]);
    expect(readZipEntry(zip, entries[0]!).toString()).toBe('{"ok":true}\n');
    expect(readZipEntry(zip, entries[1]!)).toEqual(Buffer.alloc(3000, 7));
  });

  it("tell symbolic links and folders from files", () => {
    const zip = writeZip([
      { name: "result.json", data: "/etc/passwd", mode: S_IFLNK | 0o777 },
      { name: "sub/", data: "", mode: S_IFDIR | 0o755 },
    ]);
    expect(listZipEntries(zip, 8).map((e) => e.kind)).toEqual(["symlink", "directory"]);
  });

  it("never inflate past the declared size, and refuse a size that lies", () => {
    const bomb = writeZip([{ name: "result.json", data: Buffer.alloc(1 << 20), declaredSize: 100 }]);
    const [entry] = listZipEntries(bomb, 8);
    expect(() => readZipEntry(bomb, entry!)).toThrow(/more than its declared size/);
    const short = writeZip([{ name: "result.json", data: "abc", declaredSize: 10, method: 0 }]);
    expect(() => readZipEntry(short, listZipEntries(short, 8)[0]!)).toThrow(/not the 10 it declares/);
  });

  it.each([
    ["not a zip", Buffer.from("hello, world, this is not a zip at all")],
    ["too short", Buffer.from("PK")],
    ["too many entries", writeZip(Array.from({ length: 9 }, (_, i) => ({ name: `f${i}`, data: "x" })))],
  ])("refuse %s", (_what, zip) => {
    expect(() => listZipEntries(zip, 8)).toThrow(ZipFormatError);
  });

  it("refuse a CRC that does not match", () => {
    const zip = writeZip([{ name: "a", data: "hello", method: 0 }]);
    zip[30 + 1] = "j".charCodeAt(0); // the stored data, after the 30-byte header and the name "a"
    expect(() => readZipEntry(zip, listZipEntries(zip, 8)[0]!)).toThrow(/CRC-32/);
  });
});
