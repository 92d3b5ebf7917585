import { access, mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeIfStale, TAKEOVER_STALE_MS } from "./lock-takeover.ts";

let dir: string;
let lock: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "naruto-takeover-"));
  lock = join(dir, "x.lock");
  await writeFile(lock, "4242\n");
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe("removeIfStale", () => {
  it("removes a lock judged stale, and only then", async () => {
    expect(await removeIfStale(lock, async () => false)).toBe(false);
    expect(await exists(lock)).toBe(true);
    expect(await removeIfStale(lock, async () => true)).toBe(true);
    expect(await exists(lock)).toBe(false);
    expect(await exists(`${lock}.takeover`)).toBe(false);
  });

  it("leaves the lock alone while another process judges it", async () => {
    await writeFile(`${lock}.takeover`, "");
    let asked = false;
    expect(await removeIfStale(lock, async () => (asked = true))).toBe(false);
    expect(asked).toBe(false);
    expect(await exists(lock)).toBe(true);
  });

  it("clears a judge's file left by a process that died judging, so that the next try can judge", async () => {
    await writeFile(`${lock}.takeover`, "");
    const old = new Date(Date.now() - TAKEOVER_STALE_MS - 1000);
    await utimes(`${lock}.takeover`, old, old);
    expect(await removeIfStale(lock, async () => true)).toBe(false);
    expect(await removeIfStale(lock, async () => true)).toBe(true);
  });
});
