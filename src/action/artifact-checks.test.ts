import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { S_IFDIR, S_IFLNK, writeZip, type ZipInput } from "../../test/support/zip.ts";
import { checkArtifactFolder, unpackArtifact, writeUnpacked } from "./artifact-checks.ts";
import { ARTIFACT_SPECS, MAX_JSON_BYTES } from "./artifacts.ts";

const result = { name: "result.json", data: "{}\n" };
const bundle = { name: "checkpoint.bundle", data: "# v2 git bundle\n" };

describe("unpackArtifact: a work artifact's zip, checked before a byte of it is used", () => {
  it("gives the files of an artifact as upload-artifact makes it", () => {
    const unpacked = unpackArtifact(writeZip([result, bundle]), ARTIFACT_SPECS.work);
    expect(unpacked.kind === "ok" ? [...unpacked.files.keys()] : unpacked).toEqual(["result.json", "checkpoint.bundle"]);
  });

  it.each<[string, ZipInput[], RegExp]>([
    ["an entry that leaves the folder", [result, bundle, { name: "../escaped.txt", data: "x" }], /entry "\.\.\/escaped\.txt" leaves the artifact's folder/],
    ["an absolute entry", [result, { name: "/etc/cron.d/x", data: "x" }], /leaves the artifact's folder/],
    ["a backslash", [result, { name: "..\\x", data: "x" }], /leaves the artifact's folder/],
    ["a subfolder", [result, { name: "sub/result.json", data: "x" }], /is in a subfolder/],
    ["a symbolic link", [{ name: "result.json", data: "/etc/passwd", mode: S_IFLNK | 0o777 }, bundle], /result\.json is a symbolic link/],
    ["a folder entry", [result, { name: "dir/", data: "", mode: S_IFDIR | 0o755 }], /is in a subfolder|is not a regular file/],
    ["another name", [result, bundle, { name: "evil.sh", data: "x" }], /"evil\.sh" is not a file this artifact holds \(result\.json, checkpoint\.bundle\)/],
    ["a name twice", [result, result], /result\.json appears twice/],
    ["a file past its cap (as declared)", [{ name: "result.json", data: "{}", declaredSize: MAX_JSON_BYTES + 1 }], /result\.json is larger than 4194304 bytes/],
    ["a size that lies", [{ name: "result.json", data: Buffer.alloc(4096), declaredSize: 10 }], /inflates to more than its declared size/],
  ])("refuses %s, naming it", (_what, entries, reason) => {
    const unpacked = unpackArtifact(writeZip(entries), ARTIFACT_SPECS.work);
    expect(unpacked.kind).toBe("refused");
    expect(unpacked.kind === "refused" ? unpacked.reason : "").toMatch(reason);
  });

  it("refuses what is no zip at all", () => {
    expect(unpackArtifact(Buffer.from("not a zip, just some text that is long enough"), ARTIFACT_SPECS.work)).toMatchObject({
      kind: "refused",
      reason: expect.stringMatching(/not a zip archive/),
    });
  });

  it("lets the queue artifact carry the zips of the legs it took, and nothing else", () => {
    expect(
      unpackArtifact(
        writeZip([
          { name: "queue.json", data: "{}" },
          { name: "naruto-work-a-1.zip", data: "PK" },
        ]),
        ARTIFACT_SPECS.queue,
      ).kind,
    ).toBe("ok");
    expect(
      unpackArtifact(
        writeZip([
          { name: "queue.json", data: "{}" },
          { name: "naruto-work-a-1.tar", data: "x" },
        ]),
        ARTIFACT_SPECS.queue,
      ).kind,
    ).toBe("refused");
  });
});

describe("checkArtifactFolder and writeUnpacked: what download-artifact extracted, what naruto writes", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "naruto-artifact-checks-"));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it("passes a folder of the artifact's own regular files; a missing or empty folder is missing", async () => {
    const folder = join(dir, "ok");
    await writeUnpacked(folder, new Map([["queue.json", Buffer.from("{}")]]));
    expect(await readFile(join(folder, "queue.json"), "utf8")).toBe("{}");
    expect(await checkArtifactFolder(folder, ARTIFACT_SPECS.queue)).toEqual({ kind: "ok" });
    expect(await checkArtifactFolder(join(dir, "none"), ARTIFACT_SPECS.queue)).toEqual({ kind: "missing" });
  });

  it.each<[string, (folder: string) => Promise<void>, RegExp]>([
    ["a symbolic link", (f) => symlink("/etc/passwd", join(f, "queue.json")), /queue\.json is a symbolic link/],
    ["a subfolder", (f) => mkdir(join(f, "queue.json")), /queue\.json is not a regular file/],
    ["another name", (f) => writeFile(join(f, "run.sh"), "x"), /"run\.sh" is not a file this artifact holds/],
    ["a file past its cap", (f) => writeFile(join(f, "queue.json"), Buffer.alloc(MAX_JSON_BYTES + 1)), /queue\.json is larger than 4194304 bytes/],
  ])("refuses %s", async (what, make, reason) => {
    const folder = join(dir, what.replaceAll(" ", "-"));
    await mkdir(folder, { recursive: true });
    await make(folder);
    const checked = await checkArtifactFolder(folder, ARTIFACT_SPECS.queue);
    expect(checked.kind === "refused" ? checked.reason : checked.kind).toMatch(reason);
  });
});
