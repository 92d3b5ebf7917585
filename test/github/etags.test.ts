/**
 * Conditional requests: a client with an ETag cache sends a GET it made before with
 * `If-None-Match`; an unchanged answer comes back 304 (which GitHub does not count against the
 * rate limit) and the client returns what it had, and a changed one comes back whole.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEtagCache } from "../../src/github/index.ts";
import { startTarget, type PortTarget } from "./target.ts";

let target: PortTarget;
beforeAll(async () => {
  target = await startTarget({});
});
afterAll(async () => target.close());

describe("conditional GETs", () => {
  it("answer 304 for what did not change, return the answer seen before, and the new one after a change", async (ctx) => {
    const fake = target.fake;
    if (fake === null) return ctx.skip();
    const github = target.makeGitHub({ etags: createEtagCache() });
    const ref = `${target.scratch}etag`;
    const main = await github.getRef(`refs/heads/${target.defaultBranch}`);
    if (main === null) throw new Error("no default branch");
    await github.createRef({ ref, sha: main });
    const statuses = () =>
      fake.requests.filter((r) => r.operation === "GET /repos/{owner}/{repo}/git/ref/{ref}" && r.path.includes("etag")).map((r) => r.status);

    expect(await github.getRef(ref)).toBe(main);
    expect(await github.getRef(ref)).toBe(main);
    expect(statuses()).toEqual([200, 304]);

    const tree = await github.createTree({ base: (await github.getCommit(main)).tree, entries: [{ path: "a.txt", mode: "100644", content: "a\n" }] });
    const commit = await github.createCommit({ message: "moved", tree, parents: [main] });
    await github.updateRef({ ref, sha: commit, force: false });
    expect(await github.getRef(ref)).toBe(commit);
    expect(await github.getRef(ref)).toBe(commit);
    expect(statuses()).toEqual([200, 304, 200, 304]);
  });

  it("return every page of a list read again unchanged (a run's jobs: GitHub's answer is an object around the list)", async (ctx) => {
    const fake = target.fake;
    if (fake === null || target.workflow === null) return ctx.skip();
    const github = target.makeGitHub({ etags: createEtagCache() });
    const { runId } = await github.dispatchWorkflow({ workflow: target.workflow, ref: target.defaultBranch, inputs: { mission: "m-etag1234" } });
    if (runId === null) throw new Error("no run id");
    const names = Array.from({ length: 150 }, (_, i) => `leg ${i}`);
    for (const name of names) fake.setJob(runId, { name, status: "queued" });
    const statuses = () => fake.requests.filter((r) => r.path.endsWith(`/runs/${runId}/jobs`)).map((r) => r.status);

    expect((await github.listJobs({ runId })).map((j) => j.name)).toEqual(names);
    expect((await github.listJobs({ runId })).map((j) => j.name)).toEqual(names);
    expect(statuses()).toEqual([200, 200, 304, 304]);
    // One page changed, the other not: the list is whole.
    fake.setJob(runId, { name: "leg 0", status: "in_progress" });
    const jobs = await github.listJobs({ runId });
    expect(jobs.map((j) => j.name)).toEqual(names);
    expect(jobs[0]?.status).toBe("in_progress");
    expect(statuses()).toEqual([200, 200, 304, 304, 200, 304]);
  });

  it("sends no If-None-Match without a cache", async (ctx) => {
    const fake = target.fake;
    if (fake === null) return ctx.skip();
    const before = fake.requests.length;
    await target.github.getRef(`refs/heads/${target.defaultBranch}`);
    await target.github.getRef(`refs/heads/${target.defaultBranch}`);
    expect(fake.requests.slice(before).map((r) => r.status)).toEqual([200, 200]);
  });
});
