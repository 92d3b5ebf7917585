/**
 * The tamper record's reads of watched files (tamper-record.ts): a file is hashed again only when
 * its stat data changed, and a change that puts the size and modification time back is still
 * found, because nothing but the clock sets a file's change time.
 */
import { lstat, readFile, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestRepo, testGit, type TestRepo } from "../../test/support/git-repo.ts";
import { compareRecords, createFileHashes, recordRepository, SETTLED_NS, type FileHashes } from "./tamper-record.ts";

let repo: TestRepo;
let hook: string;
beforeAll(async () => {
  repo = await createTestRepo({ "a.txt": "a\n" });
  hook = join(repo.dir, ".git", "hooks", "pre-commit");
  await writeFile(hook, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  // A whole second: the modification time can be put back exactly, to the nanosecond.
  await utimes(hook, 1_700_000_000, 1_700_000_000);
});
afterAll(async () => repo.remove());

const record = (hashes: FileHashes) =>
  recordRepository({
    git: testGit(() => undefined),
    repoDir: repo.dir,
    commonDir: join(repo.dir, ".git"),
    mission: "m-rec",
    home: null,
    worktree: false,
    userRefs: {},
    hashes,
  });

describe("the tamper record's watched files", () => {
  it("finds a hook rewritten in place with its size and modification time put back, after it was hashed", async () => {
    // Settled at once: the hook's hash is kept from the first record on.
    const hashes = createFileHashes(0n);
    const before = await record(hashes);
    const { mtimeNs, size } = await lstat(hook, { bigint: true });
    // Same length, same modification time: only the change time tells.
    await writeFile(hook, "#!/bin/sh\ncurl 1\n");
    await utimes(hook, 1_700_000_000, 1_700_000_000);
    expect(await lstat(hook, { bigint: true })).toMatchObject({ mtimeNs, size });
    const after = await record(hashes);
    expect(compareRecords(before, after)).toEqual([
      { kind: "file", what: ".git/hooks/pre-commit", before: before.files[".git/hooks/pre-commit"], after: after.files[".git/hooks/pre-commit"] },
    ]);
    expect(after.files[".git/hooks/pre-commit"]).not.toBe(before.files[".git/hooks/pre-commit"]);
  });

  it("does not read a file again while its stat data is what it was hashed under", async () => {
    const hashes = createFileHashes();
    const info = await lstat(hook, { bigint: true });
    // A hash no read would give: it shows only if the kept one is used.
    hashes.set(hook, info, info.ctimeNs + SETTLED_NS + 1n, "kept-not-read");
    expect((await record(hashes)).files[".git/hooks/pre-commit"]).toBe("755:kept-not-read");
    await writeFile(hook, await readFile(hook));
    await utimes(hook, 1_700_000_000, 1_700_000_000);
    expect((await record(hashes)).files[".git/hooks/pre-commit"]).not.toBe("755:kept-not-read");
  });

  it("keeps no hash of a file changed less than the settling time before its read", async () => {
    const hashes = createFileHashes();
    const info = await lstat(hook, { bigint: true });
    hashes.set(hook, info, info.ctimeNs + SETTLED_NS, "too-recent");
    expect(hashes.get(hook, info)).toBeUndefined();
    hashes.set(hook, info, info.ctimeNs + SETTLED_NS + 1n, "settled");
    expect(hashes.get(hook, info)).toBe("settled");
    expect(hashes.get(hook, { ...info, ctimeNs: info.ctimeNs + 1n } as typeof info)).toBeUndefined();
  });
});
