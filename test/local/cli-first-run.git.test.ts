/**
 * The first real run on a laptop (issue #35), as a newcomer meets it: the real `bin/naruto.js`
 * as a process, in scratch repositories, with their own agent script, a CLI with no key, an
 * agent that fails. What the terminal says must be enough to know what went wrong and what to do.
 */
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createTestRepo, type TestRepo } from "../support/git-repo.ts";
import { naruto } from "./naruto-process.ts";

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((f) => f()));
});

async function scratch(name = "naruto-first-run-"): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), name));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function repo(files: Record<string, string> = { "README.md": "# app\n" }): Promise<TestRepo> {
  const r = await createTestRepo(files);
  cleanup.push(() => r.remove());
  return r;
}

describe("what naruto's own words promise is what it does", () => {
  it("`naruto plan --help` names exactly the keys `naruto plan --json` prints", async () => {
    const r = await repo();
    await writeFile(join(r.dir, ".git", "plan.yml"), "version: 1\ntitle: t\nitems:\n  - { id: a, title: A, writes: [a.txt] }\n");
    const help = await naruto(r.dir, ["plan", "--help"]);
    const listed = /print one JSON object \(([^)]*)\)/.exec(help.stdout.replace(/\s+/g, " "))?.[1]?.split(", ") ?? [];
    const json = JSON.parse((await naruto(r.dir, ["plan", ".git/plan.yml", "--json"])).stdout) as Record<string, unknown>;
    expect(listed.sort()).toEqual(Object.keys(json).sort());
  });

  it("`naruto demo` says where its repository is kept, and `--no-keep` removes it", async () => {
    const temp = await scratch("naruto-demo-parent-");
    expect((await naruto(temp, ["demo", "--help"])).stdout).toContain("--no-keep");
    const demo = await naruto(temp, ["demo", "--no-keep"], { TMPDIR: temp });
    expect(demo.code, demo.stderr + demo.stdout).toBe(0);
    const made = /on a copy of examples\/demo\/project in (\S+)/.exec(demo.stdout)?.[1] ?? "";
    expect(made.startsWith(temp)).toBe(true);
    expect(demo.stdout).toContain(`repository: ${made} removed (--no-keep)`);
    expect(await readdir(temp)).toEqual([]);
  });
});
