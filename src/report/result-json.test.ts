import { describe, expect, it } from "vitest";
import { missionResult } from "./result-json.ts";
import { hugeMission, reviewedMission, runningMission } from "./missions.fixture.ts";

describe("missionResult", () => {
  it("has exactly the keys of the result contract (README, `naruto run --json`)", () => {
    const result = missionResult(reviewedMission());
    expect(Object.keys(result)).toEqual(["mission", "status", "verdict", "queue", "items", "sandbox"]);
    expect(Object.keys(result.queue)).toEqual(["branch", "head", "verify_runs"]);
    for (const item of result.items) expect(Object.keys(item)).toEqual(["id", "status", "attempts", "commit", "changed", "reason"]);
  });

  it("reports the mission, its verdict, the queue and every item", () => {
    const m = reviewedMission();
    expect(missionResult(m)).toEqual({
      mission: "m-test1",
      status: "done",
      verdict: "request_changes",
      queue: { branch: "naruto/m-test1", head: m.queue.head, verify_runs: 3 },
      items: [
        { id: "schema", status: "integrated", attempts: 1, commit: m.items[0]?.commit, changed: ["src/api/schema.ts"], reason: null },
        {
          id: "users-api",
          status: "integrated",
          attempts: 2,
          commit: m.items[1]?.commit,
          changed: [
            "src/api/users.ts",
            "src/api/shared.ts",
            "test/api/users/validation.test.ts",
            "test/api/users/fixtures/a-very-long-fixture-name-for-users.json",
          ],
          reason: null,
        },
        {
          id: "orders-api",
          status: "out_of_scope",
          attempts: 2,
          commit: null,
          changed: [],
          reason: "changed paths it may not change: README.md, package.json",
        },
        { id: "docs", status: "integrated", attempts: 2, commit: m.items[3]?.commit, changed: ["docs/api.md"], reason: null },
        { id: "billing", status: "skipped", attempts: 0, commit: null, changed: [], reason: 'dependency "orders-api" failed (out_of_scope)' },
      ],
      sandbox: "bwrap 0.8.0",
    });
    expect(m.items[0]?.commit).toMatch(/^[0-9a-f]{40}$/);
  });

  it("has a null verdict before the review", () => {
    const result = missionResult(runningMission());
    expect(result.status).toBe("running");
    expect(result.verdict).toBeNull();
  });

  it("survives a JSON round trip unchanged and shares nothing with the mission", () => {
    const m = hugeMission(20);
    const result = missionResult(m);
    expect(JSON.parse(JSON.stringify(result))).toEqual(result);
    expect(result.items[0]?.changed).not.toBe(m.items[0]?.changed);
  });
});
