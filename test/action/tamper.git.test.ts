/**
 * The queue and publish jobs do not trust the work job (an agent ran there): a bundle that changes a
 * path outside the item's writes, whose parent is not on the queue, whose trailers name another
 * item, or that holds two commits, is refused with the reason — the attempt fails, and nothing of
 * it reaches GitHub (no worker branch, the queue unmoved, its commit not in the repository).
 * The first row is the control: an honest bundle built the same way is accepted.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { partialWorkBranch, type WorkResult } from "../../src/action/artifacts.ts";
import { gitText } from "../../src/git/run-git.ts";
import { plannedEvent } from "../../src/engine/planned-event.ts";
import { applyEvent } from "../../src/mission/store.ts";
import { checkPlan } from "../../src/plan/index.ts";
import { testGit } from "../support/git-repo.ts";
import { newFolder, REPO, startWorld, type World } from "./world.ts";

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => world.close());

const git = testGit();
const PLAN = "version: 1\ntitle: One file\nitems:\n  - id: alpha\n    writes: [src/alpha.ts]\n";

/** A mission whose item `alpha` has attempt 1 in flight, written straight into the state. */
async function missionInFlight(id: string): Promise<string> {
  const job = await world.job("publish");
  const base = (await world.ref("refs/heads/main"))!;
  const settings = {
    max_parallel: 4,
    max_attempts: 2,
    item_timeout_ms: 600_000,
    mission_timeout_ms: 3_600_000,
    batch: 8,
    approval: false,
    max_cost_usd: null,
    strict: false,
  };
  const at = new Date().toISOString();
  await applyEvent(job.deps.store, id, {
    type: "requested",
    at,
    id,
    task: "one file",
    source: { kind: "github", repo: REPO, issue: 1, comment_id: null, actor: "octo-maintainer" },
    base: { ref: "main", commit: base },
    queue_branch: `naruto/${id}`,
    settings,
  });
  await job.deps.github.createRef({ ref: `refs/heads/naruto/${id}`, sha: base });
  await applyEvent(job.deps.store, id, plannedEvent(checkPlan(PLAN), at));
  return base;
}

type Craft = (repo: Repo, base: string, trailers: string) => Promise<{ commit: string; base: string }>;
interface Repo {
  run(...args: string[]): Promise<string>;
  commit(message: string, files: Record<string, string>): Promise<string>;
}

const CASES: [string, Craft, RegExp | null][] = [
  ["an honest checkpoint (control)", async (r, base, t) => ({ commit: await r.commit(`alpha\n\n${t}`, { "src/alpha.ts": "ok\n" }), base }), null],
  [
    "a path outside the item's writes",
    async (r, base, t) => ({ commit: await r.commit(`alpha\n\n${t}`, { "src/alpha.ts": "ok\n", "src/other.ts": "mine now\n" }), base }),
    /src\/other\.ts \(outside_writes\)/,
  ],
  [
    "a parent that is not on the queue",
    async (r, _base, t) => {
      await r.run("checkout", "-q", "--orphan", "elsewhere");
      await r.run("rm", "-rq", "--cached", ".");
      const orphan = await r.commit("unrelated history", { "unrelated.txt": "x\n" });
      return { commit: await r.commit(`alpha\n\n${t}`, { "src/alpha.ts": "ok\n" }), base: orphan };
    },
    /is not a commit of the queue/,
  ],
  [
    "trailers naming another item",
    async (r, base, t) => ({ commit: await r.commit(`alpha\n\n${t.replace("Naruto-Item: alpha", "Naruto-Item: beta")}`, { "src/alpha.ts": "ok\n" }), base }),
    /trailer Naruto-Item must be "alpha"/,
  ],
  [
    "two commits",
    async (r, base, t) => {
      await r.commit("first half", { "src/alpha.ts": "half\n" });
      return { commit: await r.commit(`alpha\n\n${t}`, { "src/alpha.ts": "ok\n" }), base };
    },
    /one commit whose only parent is its base/,
  ],
];

describe("queue and publish re-check every work bundle", () => {
  it.each(CASES)("%s", async (_name, craft, refusal) => {
    const id = `m-tamper${CASES.findIndex((c) => c[1] === craft)}`;
    const base = await missionInFlight(id);
    // The work job's side, done by hand as a hostile agent could: a clone of the queue.
    const agent = await world.job("agent", { checkout: `naruto/${id}` });
    const dir = agent.deps.workspace;
    const repo: Repo = {
      run: (...args) => gitText(git, { args, cwd: dir }),
      async commit(message, files) {
        for (const [path, text] of Object.entries(files)) {
          await mkdir(join(dir, path, ".."), { recursive: true });
          await writeFile(join(dir, path), text);
        }
        await this.run("add", "-A");
        await this.run("commit", "-q", "-m", message);
        return this.run("rev-parse", "HEAD");
      },
    };
    const trailers = `Naruto-Mission: ${id}\nNaruto-Item: alpha\nNaruto-Attempt: 1\nNaruto-Agent: default`;
    const made = await craft(repo, base, trailers);
    const branch = `refs/heads/naruto/${id}--alpha`;
    await repo.run("update-ref", branch, made.commit);
    const artifacts = await newFolder("naruto-artifacts-");
    const folder = join(artifacts, "naruto-work-alpha-1");
    await mkdir(folder, { recursive: true });
    await repo.run("bundle", "create", join(folder, "checkpoint.bundle"), branch, ...(made.base === base ? [`^${base}`] : []));
    const result: WorkResult = {
      schema: "naruto.work-result/v1",
      mission: id,
      item: "alpha",
      attempt: 1,
      outcome: { kind: "checkpointed", commit: made.commit, base: made.base, changed: ["src/alpha.ts"] },
      commit: made.commit,
      base: made.base,
      job: await world.legJob(id, "alpha"),
    };
    await writeFile(join(folder, "result.json"), JSON.stringify(result));
    await world.uploadLeg(id, "alpha", 1, folder);

    await world.integrate(id, { phase: "work", items: [{ item: "alpha", attempt: 1 }] }, artifacts);
    const mission = await world.mission(id);
    const attempt = mission.items[0]?.attempts[0];
    const inRepo = await gitText(git, { args: ["cat-file", "-t", made.commit], cwd: world.fake.repo(REPO).dir }).catch(() => "absent");
    if (refusal === null) {
      expect(attempt?.status).toBe("integrated");
      expect(await world.ref(branch)).toBe(made.commit);
      return;
    }
    expect(attempt?.reason).toMatch(refusal);
    expect(attempt?.status === "failed" || attempt?.status === "out_of_scope").toBe(true);
    expect(await world.ref(branch)).toBeNull();
    expect(await world.ref(`refs/heads/naruto/${id}`)).toBe(base);
    expect(inRepo).toBe("absent");
    // Refused is a failed attempt like any other: the item is tried again from the queue head
    // (dispatched: its job has not started yet).
    expect(mission.items[0]?.attempts.map((a) => a.status)).toEqual([attempt?.status, "dispatched"]);
  });
});

/**
 * The work an attempt that did not finish left travels the same way, to be kept on a branch of
 * its own (never integrated): checked like a checkpoint, and the reason names the branch only
 * when it was pushed.
 */
describe("publish keeps an unfinished attempt's work only after the same checks", () => {
  const PARTIAL: [string, Record<string, string>, boolean, RegExp | null][] = [
    ["honest partial work (control)", { "src/alpha.ts": "half\n" }, true, null],
    [
      "partial work outside the item's writes",
      { "src/alpha.ts": "half\n", "src/other.ts": "mine now\n" },
      true,
      /its partial work was not kept: it was refused: it changes paths it may not change: src\/other\.ts \(outside_writes\)/,
    ],
    [
      "an outcome that claims work the result does not carry",
      { "src/alpha.ts": "half\n" },
      false,
      /its partial work was not kept: the work job did not send the commit it says it kept/,
    ],
  ];

  it.each(PARTIAL)("%s", async (name, files, sendCommit, refusal) => {
    const id = `m-partial${PARTIAL.findIndex((c) => c[0] === name)}`;
    const base = await missionInFlight(id);
    const agent = await world.job("agent", { checkout: `naruto/${id}` });
    const dir = agent.deps.workspace;
    const run = (...args: string[]) => gitText(git, { args, cwd: dir });
    for (const [path, text] of Object.entries(files)) {
      await mkdir(join(dir, path, ".."), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    await run("add", "-A");
    await run("commit", "-q", "-m", `alpha\n\nNaruto-Mission: ${id}\nNaruto-Item: alpha\nNaruto-Attempt: 1\nNaruto-Agent: default`);
    const commit = await run("rev-parse", "HEAD");
    const branch = `refs/heads/naruto/${id}--alpha`;
    await run("update-ref", branch, commit);
    const artifacts = await newFolder("naruto-artifacts-");
    const folder = join(artifacts, "naruto-work-alpha-1");
    await mkdir(folder, { recursive: true });
    await run("bundle", "create", join(folder, "checkpoint.bundle"), branch, `^${base}`);
    const kept = `refs/heads/${partialWorkBranch(id, "alpha", 1)}`;
    const reason = `timed out after 1 min; its partial work is kept at the branch ${partialWorkBranch(id, "alpha", 1)} (${commit.slice(0, 12)})`;
    const result: WorkResult = {
      schema: "naruto.work-result/v1",
      mission: id,
      item: "alpha",
      attempt: 1,
      outcome: { kind: "timed_out", reason: "timed out after 1 min", work: { kind: "kept", ref: kept, commit, outside: [] } },
      commit: sendCommit ? commit : null,
      base,
      job: await world.legJob(id, "alpha"),
    };
    await writeFile(join(folder, "result.json"), JSON.stringify(result));
    await world.uploadLeg(id, "alpha", 1, folder);

    await world.integrate(id, { phase: "work", items: [{ item: "alpha", attempt: 1 }] }, artifacts);
    const attempt = (await world.mission(id)).items[0]?.attempts[0];
    expect(attempt?.status).toBe("timed_out");
    expect(await world.ref(`refs/heads/naruto/${id}`)).toBe(base); // never integrated
    if (refusal === null) {
      expect(attempt?.reason).toBe(reason);
      expect(await world.ref(kept)).toBe(commit);
      return;
    }
    expect(attempt?.reason).toMatch(new RegExp(`^timed out after 1 min; ${refusal.source}$`));
    expect(await world.ref(kept)).toBeNull();
    expect(await gitText(git, { args: ["cat-file", "-t", commit], cwd: world.fake.repo(REPO).dir }).catch(() => "absent")).toBe("absent");
  });
});
