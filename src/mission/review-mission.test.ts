/**
 * The review-only mission (`/naruto review` on a pull request): no plan, no items, straight to
 * `reviewing` with the reviewed commit as its queue head, then the verdict ends it.
 */
import { describe, expect, it } from "vitest";
import { at, item, planned, requested, run } from "../../test/support/mission-builders.ts";
import { parseMission } from "./document.ts";
import { IllegalEventError } from "./errors.ts";
import type { MissionEvent } from "./events.ts";
import { resumption } from "./resume.ts";
import { step } from "./step.ts";

const MERGE_BASE = "b".repeat(40);
const PR_HEAD = "c".repeat(40);

function reviewRequested(): Extract<MissionEvent, { type: "requested" }> {
  const base = requested();
  if (base.type !== "requested") throw new Error("requested() must build a requested event");
  return { ...base, base: { ref: "main", commit: MERGE_BASE }, review: { head: PR_HEAD } };
}

const reviewed: MissionEvent = {
  type: "reviewed",
  at: at(3),
  verdict: "request_changes",
  summary: "Changes requested: the review agent asks for changes.",
  findings: [],
};

const types = (r: { commands: readonly { type: string }[] }) => r.commands.map((c) => c.type);

describe("a review-only mission", () => {
  it("starts in review with the reviewed commit as its queue head, asking only for the review", () => {
    const [r] = run([reviewRequested()]);
    expect(r?.mission).toMatchObject({
      kind: "review",
      status: "reviewing",
      items: [],
      plan_text: null,
      base: { ref: "main", commit: MERGE_BASE },
      queue: { head: PR_HEAD, verify_runs: 0 },
    });
    expect(types(r!)).toEqual(["review"]);
  });

  it("ends with the verdict, reported and finished like any mission", () => {
    const [, r] = run([reviewRequested(), reviewed]);
    expect(r?.mission).toMatchObject({ status: "done", verdict: { verdict: "request_changes" } });
    expect(r?.commands).toEqual([{ type: "report" }, { type: "finish", status: "done" }]);
  });

  it("treats a redelivered request and a repeated verdict as duplicates", () => {
    const [, again, , twice] = run([reviewRequested(), reviewRequested(), reviewed, reviewed]);
    expect(again?.duplicate).toBe(true);
    expect(twice?.duplicate).toBe(true);
  });

  it("refuses a plan, and a request that brings one", () => {
    const [r] = run([reviewRequested()]);
    expect(() => step(r!.mission, planned([item("a")]))).toThrow(IllegalEventError);
    expect(() => step(null, { ...reviewRequested(), plan_text: "version: 1\nitems: []" })).toThrow(/takes no plan/);
  });

  it("lets approve, retry and the clock change nothing, and can be cancelled", () => {
    const [r] = run([reviewRequested()]);
    const mission = r!.mission;
    expect(step(mission, { type: "approved", at: at(1), by: "octo" }).duplicate).toBe(true);
    expect(step(mission, { type: "retry_requested", at: at(1), target: "failed" }).duplicate).toBe(true);
    expect(step(mission, { type: "tick", at: at(10_000) }).duplicate).toBe(true);
    const cancelled = step(mission, { type: "cancelled", at: at(2), by: "octo" });
    expect(cancelled.mission.status).toBe("cancelled");
    expect(types(cancelled)).toEqual(["report", "finish"]);
  });

  it("is reviewed again when a stopped runner left it in review", () => {
    const [r] = run([reviewRequested()]);
    expect(resumption(r!.mission, at(5))).toEqual({ events: [], checkpoints: [], review: true, plan: false });
  });

  it("reads a mission stored before missions had a kind as a run", () => {
    const [r] = run([requested()]);
    const { kind, ...stored } = r!.mission;
    expect(kind).toBe("run");
    expect(parseMission(JSON.parse(JSON.stringify(stored))).kind).toBe("run");
  });
});
