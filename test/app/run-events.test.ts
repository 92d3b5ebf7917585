/**
 * The tracking comment follows naruto's runs: a `workflow_run` or `workflow_job` event of the
 * naruto workflow re-renders the comment from the stored mission (a stale or tampered comment
 * is repaired, whatever the event says); runs of other workflows are none of naruto's business.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missionIdFor } from "../../src/github-driver/mission-id.ts";
import { plannedEvent } from "../../src/engine/planned-event.ts";
import { applyEvent } from "../../src/mission/store.ts";
import { checkPlan } from "../../src/plan/index.ts";
import { trackingComment } from "../../src/report/index.ts";
import { REPO, SECRET, startAppWorld, type AppWorld } from "./world.ts";

let world: AppWorld;
beforeAll(async () => {
  world = await startAppWorld();
});
afterAll(async () => world.close());

const PLAN = "version: 1\ntitle: One file\nitems:\n  - id: alpha\n    writes: [src/alpha.ts]\n    prompt: |\n      create src/alpha.ts\n";

async function command(body: string, w: AppWorld = world): Promise<number> {
  const commentId = await w.comment("octo-maintainer", body);
  const payload = w.fake.payloads.issueComment({ repo: REPO, commentId });
  const delivery = await w.fake.deliver({ event: "issue_comment", payload, url: w.url, secret: SECRET });
  expect(delivery.status).toBe(200);
  return commentId;
}

/** A mission approved through the App, with one work run dispatched for `alpha`. */
async function approvedMission(w: AppWorld = world): Promise<{ id: string; runId: number }> {
  const id = missionIdFor(REPO, await command(`/naruto plan one file\n\n\`\`\`naruto\n${PLAN}\`\`\``, w));
  const stored = await w.store.load(id);
  // What the plan run's publish job records.
  await applyEvent(w.store, id, plannedEvent(checkPlan(stored?.mission.plan_text ?? ""), new Date().toISOString()));
  await command("/naruto approve", w);
  const work = w.fake.dispatches.find((d) => d.inputs["mission"] === id && d.inputs["phase"] === "work");
  if (work === undefined) throw new Error("approve dispatched no work run");
  return { id, runId: work.runId };
}

/** A run payload titled as naruto's template titles its runs (the fake's runs have no `run-name`). */
function titled(payload: Record<string, unknown>, title: string): Record<string, unknown> {
  return { ...payload, workflow_run: { ...(payload["workflow_run"] as object), display_title: title } };
}

function trackingOf(id: string) {
  const found = [...world.fake.repo(REPO).comments.values()].filter((c) => c.body.startsWith(`<!-- naruto:tracking:${id} -->`));
  const [only, ...more] = found;
  if (only === undefined || more.length > 0) throw new Error(`expected one tracking comment of ${id}, found ${found.length}`);
  return only;
}

describe("the App on workflow_run and workflow_job", () => {
  it("re-renders the tracking comment from the mission state when a run of the mission moves, once per state", async () => {
    const { id, runId } = await approvedMission();
    const tracking = trackingOf(id);
    // Stale text under naruto's marker: the comment to update in place.
    tracking.body = `<!-- naruto:tracking:${id} -->\nstale`;
    world.fake.setRunStatus(runId, { status: "in_progress" });
    const payload = titled(world.fake.payloads.workflowRun({ repo: REPO, runId, action: "in_progress" }), `naruto work ${id}`);
    expect((await world.fake.deliver({ event: "workflow_run", payload, url: world.url, secret: SECRET })).status).toBe(200);
    const stored = await world.store.load(id);
    if (stored === null) throw new Error("no mission");
    expect(trackingOf(id).id).toBe(tracking.id);
    expect(trackingOf(id).body).toContain(trackingComment(stored.mission).split("\n")[1]);
    expect(trackingOf(id).body).toContain("alpha");

    // The leg's job started: its attempt's clock starts at the job's start (saved), and the
    // comment is rendered from that state.
    world.fake.setJob(runId, { name: `work ${id} alpha#1`, status: "queued" });
    const jobId = world.fake.setJob(runId, { name: `work ${id} alpha#1`, status: "in_progress", runner: "sim-runner-1" });
    const job = world.fake.payloads.workflowJob({ repo: REPO, runId, jobId, action: "in_progress" });
    expect((await world.fake.deliver({ event: "workflow_job", payload: job, url: world.url, secret: SECRET })).status).toBe(200);
    const started = (await world.store.load(id))?.mission.items[0]?.attempts[0];
    expect(started).toMatchObject({
      status: "running",
      started_at: (job["workflow_job"] as { started_at: string }).started_at,
      runner: `${world.fake.url}/acme/demo/actions/runs/${runId}/job/${jobId}`,
    });

    // The same state again (the event redelivered): one read (the state ref), and the comment is left.
    trackingOf(id).body = `<!-- naruto:tracking:${id} -->\nstale again`;
    const before = world.fake.requests.length;
    expect((await world.fake.deliver({ event: "workflow_job", payload: job, url: world.url, secret: SECRET })).status).toBe(200);
    expect(world.fake.requests.slice(before).map((r) => r.operation)).toEqual(["GET /repos/{owner}/{repo}/git/ref/{ref}"]);
    expect(trackingOf(id).body).toContain("stale again");

    // The state moved (the attempt's run was lost, as the sweep records it): the next event renders it.
    await applyEvent(world.store, id, {
      type: "attempt_finished",
      at: new Date().toISOString(),
      item: "alpha",
      attempt: 1,
      outcome: { kind: "interrupted", reason: "its run was lost" },
    });
    expect((await world.fake.deliver({ event: "workflow_job", payload: job, url: world.url, secret: SECRET })).status).toBe(200);
    expect(trackingOf(id).body).toContain("alpha");
    expect(trackingOf(id).body).not.toContain("stale again");
    expect(trackingOf(id).id).toBe(tracking.id);
    world.fake.assertNoViolations();
  });

  it("finds the mission from the event alone: an unnamed run costs no request, however many missions are stored", async () => {
    const { id, runId } = await approvedMission();
    await approvedMission();
    trackingOf(id).body = `<!-- naruto:tracking:${id} -->\nstale`;
    world.fake.setRunStatus(runId, { status: "in_progress" });
    const before = world.fake.requests.length;
    // The fake's run has no title naming the mission (an older template's run, or a run of naruto's workflow of another kind).
    const payload = world.fake.payloads.workflowRun({ repo: REPO, runId, action: "in_progress" });
    expect((await world.fake.deliver({ event: "workflow_run", payload, url: world.url, secret: SECRET })).status).toBe(200);
    const jobId = world.fake.setJob(runId, { name: "work (alpha, 1)", status: "in_progress" });
    const job = world.fake.payloads.workflowJob({ repo: REPO, runId, jobId, action: "in_progress" });
    expect((await world.fake.deliver({ event: "workflow_job", payload: job, url: world.url, secret: SECRET })).status).toBe(200);
    expect(world.fake.requests.slice(before).map((r) => r.operation)).toEqual([]);
    expect(trackingOf(id).body).toContain("stale");
  });

  it("leaves runs of other workflows alone", async () => {
    const { runId } = await approvedMission();
    // A `completed` payload is of a completed run (GitHub's schema requires its conclusion).
    world.fake.setRunStatus(runId, { status: "completed", conclusion: "success" });
    const payload = world.fake.payloads.workflowRun({ repo: REPO, runId, action: "completed" });
    const other = { ...payload, workflow_run: { ...(payload["workflow_run"] as object), path: ".github/workflows/ci.yml" } };
    const before = world.fake.requests.length;
    expect((await world.fake.deliver({ event: "workflow_run", payload: other, url: world.url, secret: SECRET })).status).toBe(200);
    expect(world.fake.requests.length).toBe(before);
  });
  it("records a leg's job that ended as its agent's exit (and its start, when that event was lost): the attempt's clock stops there", async () => {
    const { id, runId } = await approvedMission();
    world.fake.setJob(runId, { name: `work ${id} alpha#1`, status: "in_progress", runner: "sim-runner-1" });
    world.fake.advanceClock(60_000);
    const jobId = world.fake.setJob(runId, { name: `work ${id} alpha#1`, status: "completed", conclusion: "success" });
    const job = world.fake.payloads.workflowJob({ repo: REPO, runId, jobId, action: "completed" });
    const { started_at, completed_at } = job["workflow_job"] as { started_at: string; completed_at: string };
    expect((await world.fake.deliver({ event: "workflow_job", payload: job, url: world.url, secret: SECRET })).status).toBe(200);
    const stored = await world.store.load(id);
    expect(stored?.mission.items[0]?.attempts[0]).toMatchObject({ status: "running", started_at, exited_at: completed_at });
    // The same event again saves nothing.
    expect((await world.fake.deliver({ event: "workflow_job", payload: job, url: world.url, secret: SECRET })).status).toBe(200);
    expect((await world.store.load(id))?.version).toBe(stored?.version);
    world.fake.assertNoViolations();
  });

  it("starts an integrate run for the work run of a leg that ended, and none for a cancelled leg or another job", async () => {
    const { id, runId } = await approvedMission();
    const integrateRuns = () => world.fake.dispatches.filter((d) => d.inputs["mission"] === id && d.inputs["phase"] === "integrate");
    const ended = async (name: string, conclusion: "success" | "failure" | "cancelled") => {
      const jobId = world.fake.setJob(runId, { name, status: "completed", conclusion });
      const payload = world.fake.payloads.workflowJob({ repo: REPO, runId, jobId, action: "completed" });
      expect((await world.fake.deliver({ event: "workflow_job", payload, url: world.url, secret: SECRET })).status).toBe(200);
    };
    await ended(`work ${id} alpha#1`, "cancelled");
    await ended(`queue ${id}`, "success");
    expect(integrateRuns()).toEqual([]);
    await ended(`work ${id} alpha#1`, "success");
    expect(integrateRuns().map((d) => d.inputs)).toEqual([{ mission: id, phase: "integrate", run: String(runId), items: "[]" }]);
    // A failed leg has a result to record as well (its failure, its kept work): once the first
    // integrate run completed, it gets one of its own.
    const first = integrateRuns()[0]?.runId ?? 0;
    world.fake.setRunStatus(first, { status: "completed", conclusion: "success" });
    const done = titled(world.fake.payloads.workflowRun({ repo: REPO, runId: first, action: "completed" }), `naruto integrate ${id}`);
    expect((await world.fake.deliver({ event: "workflow_run", payload: done, url: world.url, secret: SECRET })).status).toBe(200);
    await ended(`work ${id} alpha#1`, "failure");
    expect(integrateRuns()).toHaveLength(2);
  });

  it("holds one integrate run of a work run in flight: legs that end while it waits for a runner get one more once it completed, and none when none ended", async () => {
    const { id, runId } = await approvedMission();
    const integrateRuns = () => world.fake.dispatches.filter((d) => d.inputs["mission"] === id && d.inputs["phase"] === "integrate");
    const ended = async (name: string) => {
      const jobId = world.fake.setJob(runId, { name, status: "completed", conclusion: "success" });
      const payload = world.fake.payloads.workflowJob({ repo: REPO, runId, jobId, action: "completed" });
      expect((await world.fake.deliver({ event: "workflow_job", payload, url: world.url, secret: SECRET })).status).toBe(200);
    };
    const completed = async (run: number, title: string) => {
      world.fake.setRunStatus(run, { status: "completed", conclusion: "success" });
      const payload = titled(world.fake.payloads.workflowRun({ repo: REPO, runId: run, action: "completed" }), title);
      expect((await world.fake.deliver({ event: "workflow_run", payload, url: world.url, secret: SECRET })).status).toBe(200);
    };
    // Eight legs end one after the other (no render interval: each event on its own) while the
    // first integrate run waits, queued, for a runner the legs hold (the account's job quota).
    for (const leg of ["a", "b", "c", "d", "e", "f", "g", "h"]) await ended(`work ${id} ${leg}#1`);
    expect(integrateRuns()).toHaveLength(1);
    const [first] = integrateRuns();
    expect(world.fake.repo(REPO).runs.get(first?.runId ?? 0)?.status).toBe("queued");
    // Another mission's run, and the work run's other jobs, change nothing.
    await ended(`queue ${id}`);
    expect(integrateRuns()).toHaveLength(1);
    // It completed: one more for the legs that ended since its dispatch, for the same work run.
    await completed(first?.runId ?? 0, `naruto integrate ${id}`);
    expect(integrateRuns().map((d) => d.inputs)).toEqual([
      { mission: id, phase: "integrate", run: String(runId), items: "[]" },
      { mission: id, phase: "integrate", run: String(runId), items: "[]" },
    ]);
    // The same event again (a redelivery) dispatches nothing more.
    await completed(first?.runId ?? 0, `naruto integrate ${id}`);
    expect(integrateRuns()).toHaveLength(2);
    // The second completed with no leg ended meanwhile: none more; the next leg's end starts one.
    await completed(integrateRuns()[1]?.runId ?? 0, `naruto integrate ${id}`);
    expect(integrateRuns()).toHaveLength(2);
    await ended(`work ${id} i#1`);
    expect(integrateRuns()).toHaveLength(3);
    world.fake.assertNoViolations();
  });

  it("lets legs that end within the interval share one integrate run", async () => {
    const own = await startAppWorld({ trackingIntervalMs: 60_000 });
    try {
      const { id, runId } = await approvedMission(own);
      const ended = async (name: string) => {
        const jobId = own.fake.setJob(runId, { name, status: "completed", conclusion: "success" });
        const payload = own.fake.payloads.workflowJob({ repo: REPO, runId, jobId, action: "completed" });
        expect((await own.fake.deliver({ event: "workflow_job", payload, url: own.url, secret: SECRET })).status).toBe(200);
      };
      await ended(`work ${id} alpha#1`);
      await ended(`work ${id} beta#1`);
      await ended(`work ${id} gamma#1`);
      // The first at once; the others wait for it to complete (integrate-flights.test.ts).
      expect(own.fake.dispatches.filter((d) => d.inputs["phase"] === "integrate")).toHaveLength(1);
    } finally {
      await own.close();
    }
  });
});
