import { describe, expect, it } from "vitest";
import type { RunArtifact, WorkflowJob, WorkflowStep } from "../../github/index.ts";
import { checkpointed, integrated, at as minutes, item, missionAfter, planned, requested } from "../../../test/support/mission-builders.ts";
import type { MissionEvent } from "../../mission/index.ts";
import { legsInFlight, legsSettled, UPLOAD_STEP, viewLegs } from "./legs.ts";

const RUN = 41;
const MISSION = "m-test1";
const started = (id: string, run: number, attempt = 1): MissionEvent => ({
  type: "attempt_started",
  at: minutes(2 + attempt),
  item: id,
  attempt,
  base: "b".repeat(40),
  runner: `https://github.test/acme/demo/actions/runs/${run}`,
});
/** fast and slow run in run 41, other in run 99. */
const mission = missionAfter([
  requested(),
  planned([item("fast"), item("slow"), item("other")]),
  started("fast", RUN),
  started("slow", RUN),
  started("other", 99),
]);

const at = (s: number) => new Date(Date.UTC(2026, 11, 1, 12, 0, s)).toISOString().replace(/\.\d{3}Z$/, "Z");

function step(
  status: "in_progress" | "completed",
  from: number,
  to: number | null,
  conclusion: string | null = status === "completed" ? "success" : null,
): WorkflowStep {
  return { number: 5, name: UPLOAD_STEP, status, conclusion, startedAt: at(from), completedAt: to === null ? null : at(to) };
}

function job(item: string, input: { status?: "in_progress" | "completed"; steps?: WorkflowStep[] } = {}): WorkflowJob {
  const status = input.status ?? "completed";
  return {
    id: item.length * 100,
    name: `work ${MISSION} ${item}#1`,
    status,
    conclusion: status === "completed" ? "success" : null,
    url: `https://github.test/job/${item}`,
    startedAt: at(0),
    completedAt: status === "completed" ? at(30) : null,
    runAttempt: 1,
    steps: input.steps ?? [step("completed", 20, 22)],
  };
}

function artifact(name: string, created: number, id = created + 1000): RunArtifact {
  return { id, name, sizeInBytes: 100, digest: `sha256:${"a".repeat(64)}`, createdAt: at(created), expired: false, runId: RUN };
}

const view = (jobs: WorkflowJob[], artifacts: RunArtifact[], dispatched: { item: string; attempt: number }[] | null = null) =>
  viewLegs({ mission, runId: RUN, dispatched, jobs, artifacts });

describe("viewLegs: a leg's artifact is its own only if its upload step made it", () => {
  it("takes the artifact made while the leg's upload step ran, once its job completed", () => {
    const { legs, forgeries } = view([job("fast"), job("slow", { status: "in_progress", steps: [] })], [artifact("naruto-work-fast-1", 21)]);
    expect(legs.map((l) => [l.item, l.kind])).toEqual([
      ["fast", "ended"],
      ["slow", "working"],
    ]);
    expect(forgeries).toEqual([]);
  });

  it("names as a forgery an artifact for a leg that has not reached its upload step", () => {
    const { legs, forgeries } = view(
      [job("fast"), job("slow", { status: "in_progress", steps: [] })],
      [artifact("naruto-work-fast-1", 21), artifact("naruto-work-slow-1", 15)],
    );
    expect(legs.find((l) => l.item === "slow")?.kind).toBe("working");
    expect(forgeries.map((f) => [f.artifact.name, f.reason])).toEqual([
      ["naruto-work-slow-1", "slow#1's leg is still at work (it has not reached its upload step)"],
    ]);
  });

  it("leaves alone, unnamed, a leg uploading right now", () => {
    const { legs, forgeries } = view([job("slow", { status: "in_progress", steps: [step("in_progress", 20, null)] })], [artifact("naruto-work-slow-1", 21)]);
    expect(legs.find((l) => l.item === "slow")?.kind).toBe("working");
    expect(forgeries).toEqual([]);
  });

  it.each([
    ["made before its upload step started", [step("completed", 20, 22)], 19, /not while slow#1's upload step ran/],
    ["made after its upload step ended", [step("completed", 20, 22)], 23, /not while slow#1's upload step ran/],
    ["whose leg's upload step failed (a name taken before it)", [step("completed", 20, 22, "failure")], 21, /did not upload it: its upload step ended failure/],
    ["whose leg never ran an upload step", [], 21, /did not upload it: its upload step never ran/],
  ])("refuses an artifact %s, and the attempt fails without a result", (_what, steps, created, reason) => {
    const { legs, forgeries } = view([job("slow", { steps })], [artifact("naruto-work-slow-1", created)]);
    expect(legs.find((l) => l.item === "slow")).toMatchObject({ kind: "missing" });
    expect(forgeries.map((f) => f.reason)).toEqual([expect.stringMatching(reason)]);
  });

  it("names artifacts of no leg of this run in flight: another run's attempt, an item the mission lacks, two of one name", () => {
    const { forgeries } = view(
      [job("fast"), job("slow")],
      [
        artifact("naruto-work-other-1", 21, 3),
        artifact("naruto-work-ghost-1", 21, 4),
        artifact("naruto-work-slow-1", 21, 1),
        artifact("naruto-work-slow-1", 21, 2),
      ],
    );
    expect(forgeries.map((f) => `${f.artifact.name}: ${f.reason}`)).toEqual([
      "naruto-work-slow-1: run 41 holds 2 artifacts named naruto-work-slow-1: none is taken",
      "naruto-work-slow-1: run 41 holds 2 artifacts named naruto-work-slow-1: none is taken",
      "naruto-work-other-1: other#1 did not run in run 41",
      "naruto-work-ghost-1: the mission has no attempt ghost#1",
    ]);
  });

  it("names a later attempt's artifact under an earlier attempt's name: x#2's job uploads naruto-work-x-1 into its run", () => {
    const retried = missionAfter([
      requested(),
      planned([item("x")]),
      started("x", 40),
      { type: "attempt_finished", at: minutes(3), item: "x", attempt: 1, outcome: { kind: "failed", reason: "boom" } },
      started("x", RUN, 2),
    ]);
    const jobs = [{ ...job("x"), name: `work ${MISSION} x#2` }];
    const { legs, forgeries } = viewLegs({
      mission: retried,
      runId: RUN,
      dispatched: null,
      jobs,
      artifacts: [artifact("naruto-work-x-1", 21, 1), artifact("naruto-work-x-2", 21, 2)],
    });
    expect(legs.map((l) => [l.item, l.attempt, l.kind, l.kind === "ended" ? l.artifact.name : null])).toEqual([["x", 2, "ended", "naruto-work-x-2"]]);
    expect(forgeries.map((f) => `${f.artifact.name}: ${f.reason}`)).toEqual(["naruto-work-x-1: x#1 did not run in run 41"]);
  });

  it("in a work run takes only the legs it was dispatched for; in an integrate run those the state runs there", () => {
    expect(legsInFlight({ mission, runId: RUN, dispatched: [{ item: "fast", attempt: 1 }] })).toEqual([{ item: "fast", attempt: 1 }]);
    expect(legsInFlight({ mission, runId: RUN, dispatched: null })).toEqual([
      { item: "fast", attempt: 1 },
      { item: "slow", attempt: 1 },
    ]);
    expect(legsInFlight({ mission, runId: 7, dispatched: null })).toEqual([]);
  });
});

describe("legsSettled", () => {
  it("names the legs of the run the state already records as ended, whichever run recorded them", () => {
    const later = missionAfter([
      requested(),
      planned([item("fast"), item("slow"), item("other")]),
      started("fast", RUN),
      started("slow", RUN),
      started("other", 99),
      checkpointed("slow"),
      integrated("slow"),
      checkpointed("other"),
      integrated("other"),
    ]);
    expect(legsSettled(later, RUN)).toEqual([{ item: "slow", attempt: 1 }]);
    expect(legsSettled(mission, RUN)).toEqual([]);
  });
});
