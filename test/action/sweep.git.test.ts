/**
 * The `sweep` mode against the fake GitHub, on a clock the test moves: an attempt whose run
 * finished without its result reaching the mission is interrupted and started again; an attempt
 * whose job waits for a runner is not timed out (its clock starts when the job does, which the
 * sweep reads from the run's jobs) until it waited past `queue_timeout`; an attempt past
 * `item_timeout` from its start times out, its run is cancelled (once no attempt of its batch is
 * in flight) and it is retried; the worker branches of a
 * mission finished longer ago than the retention are deleted, its queue branch kept.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sweepMode } from "../../src/action/modes/sweep.ts";
import { cancelRuns, carryOut } from "../../src/github-driver/carry-out.ts";
import { missionIdFor, runIdOf } from "../../src/github-driver/mission-id.ts";
import { plannedEvent } from "../../src/engine/planned-event.ts";
import { markerFor } from "../../src/github/marker.ts";
import { applyEvent } from "../../src/mission/store.ts";
import { checkPlan } from "../../src/plan/index.ts";
import { REPO, startWorld, type World } from "./world.ts";

let world: World;
let clock = Date.now();
const now = () => new Date(clock);
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => world.close());

const MINUTE = 60_000;
const PLAN = "version: 1\ntitle: Two\nitems:\n  - id: one\n    writes: [src/one.ts]\n  - id: two\n    writes: [src/two.ts]\n";

async function startMission(id: string): Promise<void> {
  const job = await world.job("publish", { now });
  const base = (await world.ref("refs/heads/main"))!;
  const settings = {
    max_parallel: 4,
    max_attempts: 3,
    item_timeout_ms: 10 * MINUTE,
    mission_timeout_ms: 24 * 60 * MINUTE,
    batch: 8,
    approval: false,
    max_cost_usd: null,
    strict: false,
  };
  const at = now().toISOString();
  await applyEvent(job.deps.store, id, {
    type: "requested",
    at,
    id,
    task: "two files",
    source: { kind: "github", repo: REPO, issue: 1, comment_id: null, actor: "octo-maintainer" },
    base: { ref: "main", commit: base },
    queue_branch: `naruto/${id}`,
    settings,
  });
  await job.deps.github.createRef({ ref: `refs/heads/naruto/${id}`, sha: base });
  const planned = await applyEvent(job.deps.store, id, plannedEvent(checkPlan(PLAN), at));
  await carryOut(job.deps, planned);
}

async function sweep(): Promise<void> {
  const job = await world.job("publish", { now });
  await sweepMode(job.deps);
}

describe("sweep mode", () => {
  it("reconciles lost runs, times out stuck attempts, and deletes old worker and kept-work branches", async () => {
    await startMission("m-sweepa");
    let mission = await world.mission("m-sweepa");
    const runOf = (item: string, n: number) => runIdOf(mission.items.find((i) => i.id === item)?.attempts[n - 1]?.runner ?? null);
    const [one, two] = [runOf("one", 1), runOf("two", 1)];
    expect(one).not.toBeNull();
    // Started together, so one run: a matrix of both.
    expect(two).toBe(one);

    // The run finished, but its publish job never recorded the results.
    world.fake.setRunStatus(one!, { status: "completed", conclusion: "failure" });
    clock += MINUTE;
    await sweep();
    mission = await world.mission("m-sweepa");
    for (const item of mission.items) {
      expect(item.attempts.map((a) => a.status)).toEqual(["interrupted", "dispatched"]);
      expect(item.attempts[0]?.reason).toContain("its run ended (failure) without its result reaching the mission");
    }
    const again = runOf("one", 2);
    expect(runOf("two", 2)).toBe(again);
    expect(again).not.toBe(one);

    // The retries wait for a runner past their item timeout: their clock has not started, so
    // nothing times out (runners queue jobs beyond the account's concurrent-job quota).
    clock += 11 * MINUTE;
    await sweep();
    mission = await world.mission("m-sweepa");
    for (const item of mission.items) expect(item.attempts.map((a) => a.status)).toEqual(["interrupted", "dispatched"]);
    expect(world.fake.repo(REPO).runs.get(again!)?.conclusion ?? null).toBeNull();

    // A runner takes both legs: the sweep reads their start from the jobs, and their clock runs from there.
    const shift = clock - world.fake.now();
    world.fake.advanceClock(shift);
    const legs = mission.items.map((i) => world.fake.setJob(again!, { name: `work m-sweepa ${i.id}#2`, status: "in_progress", runner: "sim-runner-1" }));
    const startedAt = new Date(world.fake.now()).toISOString().replace(/\.\d{3}Z$/, "Z");
    world.fake.advanceClock(-shift);
    clock += 5 * MINUTE;
    await sweep();
    mission = await world.mission("m-sweepa");
    for (const [k, item] of mission.items.entries()) {
      expect(item.attempts.map((a) => a.status)).toEqual(["interrupted", "running"]);
      expect(item.attempts[1]).toMatchObject({ started_at: startedAt, runner: `${world.fake.url}/acme/demo/actions/runs/${again!}/job/${legs[k]!}` });
    }

    // Running past their item timeout: their run is cancelled, they start again.
    clock += 6 * MINUTE;
    await sweep();
    mission = await world.mission("m-sweepa");
    for (const item of mission.items) {
      expect(item.attempts.map((a) => a.status)).toEqual(["interrupted", "timed_out", "dispatched"]);
      expect(item.attempts[1]?.reason).toBe("timed out: no result after 10 min");
    }
    expect(world.fake.repo(REPO).runs.get(again!)?.conclusion).toBe("cancelled");

    // The third attempts never get a runner: past the queue limit they time out too, and their run is cancelled.
    const third = runOf("one", 3);
    clock += 2 * 60 * MINUTE + MINUTE;
    await sweep();
    mission = await world.mission("m-sweepa");
    for (const item of mission.items) {
      expect(item.attempts.map((a) => a.status)).toEqual(["interrupted", "timed_out", "timed_out", "dispatched"]);
      expect(item.attempts[2]?.reason).toContain("timed out: waited 120 min for a runner and never started");
    }
    expect(world.fake.repo(REPO).runs.get(third!)?.conclusion).toBe("cancelled");

    // A cancelled mission's worker branches go after the retention; its queue branch stays.
    const job = await world.job("publish", { now });
    await applyEvent(job.deps.store, "m-sweepa", { type: "cancelled", at: now().toISOString(), by: "octo-maintainer" });
    const base = (await world.ref("refs/heads/main"))!;
    await job.deps.github.createRef({ ref: "refs/heads/naruto/m-sweepa--one", sha: base });
    await job.deps.github.createRef({ ref: "refs/heads/naruto-attempts/m-sweepa/two/1", sha: base }); // unfinished work kept
    await sweep();
    expect(await world.ref("refs/heads/naruto/m-sweepa--one")).toBe(base);
    expect(await world.ref("refs/heads/naruto-attempts/m-sweepa/two/1")).toBe(base);
    clock += 8 * 24 * 60 * MINUTE;
    await sweep();
    expect(await world.ref("refs/heads/naruto/m-sweepa--one")).toBeNull();
    expect(await world.ref("refs/heads/naruto-attempts/m-sweepa/two/1")).toBeNull();
    expect(await world.ref("refs/heads/naruto/m-sweepa")).toBe(base);
  });

  it("indexes a mission under way that was made before missions were indexed by issue, so that the issue's commands find it", async () => {
    await startMission("m-0ldm1ss10n");
    const job = await world.job("publish", { now });
    const index = "refs/heads/naruto-state/by-issue/1/m-0ldm1ss10n";
    expect(await world.ref(index)).not.toBeNull();
    // As an older naruto left it: no index ref.
    await job.deps.github.deleteRef(index);
    await sweep();
    expect(await world.ref(index)).not.toBeNull();
    // Indexed already: the next sweep only reads it.
    const before = world.fake.requests.length;
    await sweep();
    expect(world.fake.requests.slice(before).filter((r) => r.method === "POST" && decodeURIComponent(r.path).includes("by-issue"))).toEqual([]);
  });
  it("stops an attempt's clock when its leg's job ended, and times it out only when its result waits past queue_timeout", async () => {
    await startMission("m-sweepe");
    let mission = await world.mission("m-sweepe");
    const runId = runIdOf(mission.items[0]?.attempts[0]?.runner ?? null)!;
    // Runners take both legs; `one`'s job ends 3 minutes later (its artifact uploaded), while
    // the job that will record its result waits for a runner (the account's quota).
    const shift = clock - world.fake.now();
    world.fake.advanceClock(shift);
    for (const i of mission.items) world.fake.setJob(runId, { name: `work m-sweepe ${i.id}#1`, status: "in_progress", runner: "sim-runner-1" });
    world.fake.advanceClock(3 * MINUTE);
    world.fake.setJob(runId, { name: "work m-sweepe one#1", status: "completed", conclusion: "success" });
    const endedAt = new Date(world.fake.now()).toISOString().replace(/\.\d{3}Z$/, "Z");
    world.fake.advanceClock(-shift - 3 * MINUTE);

    // Past the item timeout from their start: `two` still runs and times out; `one`'s agent is done.
    clock += 12 * MINUTE;
    await sweep();
    mission = await world.mission("m-sweepe");
    const [one, two] = mission.items;
    expect(one?.attempts.map((a) => a.status)).toEqual(["running"]);
    expect(one?.attempts[0]?.exited_at).toBe(endedAt);
    expect(two?.attempts.map((a) => a.status)).toEqual(["timed_out", "dispatched"]);
    expect(two?.attempts[0]?.reason).toBe("timed out: no result after 10 min");

    // Its result never arrives: past the queue limit from its job's end, it times out too.
    clock += 2 * 60 * MINUTE;
    await sweep();
    mission = await world.mission("m-sweepe");
    expect(mission.items[0]?.attempts.map((a) => a.status)).toEqual(["timed_out", "dispatched"]);
    expect(mission.items[0]?.attempts[0]?.reason).toContain("timed out: its agent exited, but its result did not reach the mission within 120 min");
  });
  it("cancels a batch's run only when no attempt of it is still in flight", async () => {
    await startMission("m-sweepc");
    const job = await world.job("publish", { now });
    const mission = await world.mission("m-sweepc");
    const runId = runIdOf(mission.items[0]?.attempts[0]?.runner ?? null)!;
    expect(runIdOf(mission.items[1]?.attempts[0]?.runner ?? null)).toBe(runId);
    // `one` stopped, `two` still running in the same run: cancelling the run would lose `two`.
    const oneStopped = structuredClone(mission);
    oneStopped.items[0]!.attempts[0]!.status = "cancelled";
    await cancelRuns(job.deps, oneStopped, [{ item: "one", attempt: 1 }]);
    expect(world.fake.repo(REPO).runs.get(runId)?.conclusion ?? null).toBeNull();
    // Both stopped: the run goes.
    const bothStopped = structuredClone(oneStopped);
    bothStopped.items[1]!.attempts[0]!.status = "cancelled";
    await cancelRuns(job.deps, bothStopped, [{ item: "two", attempt: 1 }]);
    expect(world.fake.repo(REPO).runs.get(runId)?.conclusion).toBe("cancelled");
  });
  it("handles a /naruto comment that nobody answered (the App took it and crashed), once, and leaves answered ones alone", async () => {
    clock = Date.now();
    const lost = await world.comment("octo-maintainer", `/naruto plan two files\n\n\`\`\`naruto\n${PLAN}\`\`\``);
    const answered = await world.comment("octo-maintainer", "/naruto status");
    const job = await world.job("publish", { now });
    await job.deps.github.addReaction({ target: { comment: answered.comment.id }, content: "eyes" });
    const id = missionIdFor(REPO, lost.comment.id);

    // Within the grace period the App may still be at it: left alone.
    await sweep();
    expect(await world.ref(`refs/heads/naruto-state/${id}`)).toBeNull();

    clock += 3 * MINUTE;
    await sweep();
    const mission = await world.mission(id);
    expect(mission.status).toBe("planning");
    expect(world.fake.dispatches.filter((d) => d.inputs["mission"] === id).map((d) => d.inputs["phase"])).toEqual(["plan"]);
    const reactions = [...world.fake.repo(REPO).reactions.values()].filter((r) => r.subject.kind === "comment");
    expect(reactions.filter((r) => r.subject.kind === "comment" && r.subject.id === lost.comment.id).map((r) => r.content)).toEqual(["eyes"]);
    // The answered comment was not handled again (no second 👀, no reply).
    expect(reactions.filter((r) => r.subject.kind === "comment" && r.subject.id === answered.comment.id)).toHaveLength(1);
    const tracking = () => [...world.fake.repo(REPO).comments.values()].filter((c) => c.body.startsWith(`<!-- naruto:tracking:${id} -->`));
    expect(tracking()).toHaveLength(1);

    // The next sweep finds it answered.
    clock += MINUTE;
    const before = (await world.mission(id)).seq;
    await sweep();
    expect((await world.mission(id)).seq).toBe(before);
    expect(tracking()).toHaveLength(1);
  });
  it("handles a mission command that got its 👀 but no mission (the App crashed between the two), and not one whose mission is stored", async () => {
    clock = Date.now();
    const reacted = await world.comment("octo-maintainer", `/naruto plan two files\n\n\`\`\`naruto\n${PLAN}\`\`\``);
    const job = await world.job("publish", { now });
    await job.deps.github.addReaction({ target: { comment: reacted.comment.id }, content: "eyes" });
    const id = missionIdFor(REPO, reacted.comment.id);

    clock += 3 * MINUTE;
    await sweep();
    expect((await world.mission(id)).status).toBe("planning");
    expect(world.fake.dispatches.filter((d) => d.inputs["mission"] === id).map((d) => d.inputs["phase"])).toEqual(["plan"]);

    // Stored now: the next sweep leaves it alone.
    clock += MINUTE;
    const before = (await world.mission(id)).seq;
    const requests = world.fake.requests.length;
    await sweep();
    expect((await world.mission(id)).seq).toBe(before);
    expect(world.fake.dispatches.filter((d) => d.inputs["mission"] === id)).toHaveLength(1);
    // No second 👀, reply or tracking comment (the sweep's other writes, such as its index ref, aside).
    expect(world.fake.requests.slice(requests).filter((r) => r.method !== "GET" && /\/(reactions|comments)$/.test(r.path))).toEqual([]);
  });
  it("leaves alone a mission command with its 👀 and naruto's reply but no mission (refused after the 👀, and cleaned up)", async () => {
    clock = Date.now();
    const refused = await world.comment("octo-maintainer", `/naruto plan two files\n\n\`\`\`naruto\n${PLAN}\`\`\``);
    const job = await world.job("publish", { now });
    await job.deps.github.addReaction({ target: { comment: refused.comment.id }, content: "eyes" });
    // As the workflow refusal leaves it: the reply keyed to the comment, the mission discarded.
    await job.deps.github.upsertComment({
      issue: 1,
      marker: markerFor(`reply:${refused.comment.id}`),
      body: "naruto did not start: …",
      author: ["github-actions[bot]"],
    });
    clock += 3 * MINUTE;
    await sweep();
    expect(await world.ref(`refs/heads/naruto-state/${missionIdFor(REPO, refused.comment.id)}`)).toBeNull();
  });
  it("remembers the missions it found ended: later sweeps read none of them again, until their retention passes, and then once", async () => {
    clock = Date.now();
    const ids = ["m-endeda", "m-endedb", "m-endedc"];
    for (const id of ids) {
      await startMission(id);
      const job = await world.job("publish", { now });
      await applyEvent(job.deps.store, id, { type: "cancelled", at: now().toISOString(), by: "octo-maintainer" });
    }
    const readsOfThem = async () => {
      const before = world.fake.requests.length;
      await sweep();
      return world.fake.requests
        .slice(before)
        .filter((r) => ids.some((id) => decodeURIComponent(r.path).includes(id)))
        .map((r) => `${r.method} ${decodeURIComponent(r.path)}`);
    };
    expect(await readsOfThem()).not.toEqual([]);
    expect(await world.ref("refs/heads/naruto-state/sweep/ended")).not.toBeNull();
    clock += MINUTE;
    expect(await readsOfThem()).toEqual([]);
    // Past the retention: loaded once more, their worker branches deleted, then left alone for good.
    await (await world.job("publish", { now })).deps.github.createRef({ ref: "refs/heads/naruto/m-endeda--one", sha: (await world.ref("refs/heads/main"))! });
    clock += 8 * 24 * 60 * MINUTE;
    expect(await readsOfThem()).not.toEqual([]);
    expect(await world.ref("refs/heads/naruto/m-endeda--one")).toBeNull();
    clock += MINUTE;
    expect(await readsOfThem()).toEqual([]);
    // A mission whose state moved since is read again (the record names the version it saw).
    const job = await world.job("publish", { now });
    const stored = (await job.deps.store.load("m-endedb"))!;
    const saved = await job.deps.store.save({ ...stored.mission, seq: stored.mission.seq + 1 }, stored.version);
    expect(saved.ok).toBe(true);
    expect((await readsOfThem()).some((r) => r.includes("naruto-state/m-endedb"))).toBe(true);
  });
});
