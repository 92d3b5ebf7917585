import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createUserPool, NoSandboxUserError } from "./user-pool.ts";

const folders: string[] = [];
afterEach(async () => {
  for (const f of folders.splice(0)) await rm(f, { recursive: true, force: true });
});

async function leaseDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "naruto-users-"));
  folders.push(dir);
  return dir;
}

/** Another naruto process's pid, alive or gone as the test says. */
const OTHER = 4_000_001;

describe("the sandbox users' pool", () => {
  it("never leases one uid twice at once, and leases it again once given back", async () => {
    const pool = createUserPool({ first: 100, count: 3, dir: null, start: () => 0 });
    const leases = [await pool.lease(), await pool.lease(), await pool.lease()];
    expect(leases.map((l) => l.user)).toEqual([
      { uid: 100, gid: 100 },
      { uid: 101, gid: 101 },
      { uid: 102, gid: 102 },
    ]);
    await expect(pool.lease()).rejects.toThrow(NoSandboxUserError);
    await expect(pool.lease()).rejects.toThrow("every sandbox user (uids 100–102) is in use by a running sandbox: lower limits.max_parallel");
    await leases[1]?.release();
    await leases[1]?.release();
    expect((await pool.lease()).user.uid).toBe(101);
  });

  it("gives the uid asked for when it is free (a verify where its agent ran), another when not", async () => {
    const pool = createUserPool({ first: 100, count: 3, dir: null, start: () => 0 });
    expect((await pool.lease(102)).user.uid).toBe(102);
    expect((await pool.lease(102)).user.uid).toBe(100);
    expect((await pool.lease(7)).user.uid).toBe(101);
  });

  it("starts its search where it is told (random by default), so that pools that cannot see each other rarely meet", async () => {
    const pool = createUserPool({ first: 100, count: 10, dir: null, start: () => 8 });
    expect([(await pool.lease()).user.uid, (await pool.lease()).user.uid, (await pool.lease()).user.uid]).toEqual([108, 109, 100]);
  });

  it("steps back from a uid another live process holds, and takes one whose process is gone", async () => {
    const dir = await leaseDir();
    await writeFile(join(dir, `100.${OTHER}`), "");
    await writeFile(join(dir, `101.${OTHER + 1}`), "");
    const pool = createUserPool({ first: 100, count: 3, dir, start: () => 0, alive: (pid) => pid === OTHER });
    const first = await pool.lease();
    expect(first.user.uid).toBe(101);
    expect((await readdir(dir)).sort()).toEqual([`100.${OTHER}`, `101.${process.pid}`]);
    await first.release();
    expect(await readdir(dir)).toEqual([`100.${OTHER}`]);
  });

  it("takes a uid whose file an earlier process with this pid left (one pool per process: sharedUserPool)", async () => {
    const dir = await leaseDir();
    await writeFile(join(dir, `100.${process.pid}`), "");
    const pool = createUserPool({ first: 100, count: 2, dir, start: () => 0 });
    const lease = await pool.lease();
    expect(lease.user.uid).toBe(100);
    expect((await pool.lease()).user.uid).toBe(101);
    await lease.release();
    expect(await readdir(dir)).toEqual([`101.${process.pid}`]);
  });
});
