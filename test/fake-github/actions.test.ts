/** workflow_dispatch as GitHub checks it, the record the Actions simulator reads, runs and jobs. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, field, startDemo, type Demo } from "./helpers.ts";

let demo: Demo;
let call: ReturnType<typeof api>;
const DISPATCH = "/repos/acme/demo/actions/workflows/naruto.yml/dispatches";

beforeAll(async () => {
  demo = await startDemo();
  call = api(demo.github, demo.maintainer);
});
afterAll(async () => {
  demo.github.assertNoViolations();
  await demo.github.close();
});

describe("workflow dispatch", () => {
  it("answers 204, records the dispatch with defaults filled in, and creates a queued run", async () => {
    const answer = await call("POST", DISPATCH, { ref: "main", inputs: { mission: "m-1" } });
    expect(answer.status).toBe(204);
    const record = demo.github.dispatches.at(-1);
    expect(record).toMatchObject({
      owner: "acme",
      repo: "demo",
      workflow: ".github/workflows/naruto.yml",
      ref: "main",
      sha: demo.mainSha,
      inputs: { mission: "m-1", mode: "work" },
      actor: "octo-maintainer",
    });
    const run = await call("GET", `/repos/acme/demo/actions/runs/${record?.runId ?? 0}`);
    expect(run.body).toMatchObject({
      id: record?.runId,
      status: "queued",
      event: "workflow_dispatch",
      head_sha: demo.mainSha,
      path: ".github/workflows/naruto.yml",
    });
  });

  it("returns the run when asked (return_run_details)", async () => {
    const answer = await call("POST", DISPATCH, { ref: "main", inputs: { mission: "m-2" }, return_run_details: true });
    expect(answer.status).toBe(200);
    const runId = demo.github.dispatches.at(-1)?.runId;
    expect(answer.body).toEqual({
      workflow_run_id: runId,
      run_url: `${demo.github.apiUrl}/repos/acme/demo/actions/runs/${String(runId)}`,
      html_url: `${demo.github.url}/acme/demo/actions/runs/${String(runId)}`,
    });
  });

  it("on a GitHub Enterprise Server before 3.21, answers return_run_details with 400 and dispatches nothing", async () => {
    const ghes = await startDemo({ ghesVersion: "3.20" });
    try {
      const before = ghes.github.dispatches.length;
      const refused = await api(ghes.github, ghes.maintainer)("POST", DISPATCH, { ref: "main", inputs: { mission: "m-3" }, return_run_details: true });
      expect(refused.status).toBe(400);
      expect(field(refused.body, "message")).toBe('Invalid request.\n\n"return_run_details" is not a permitted key.');
      expect(ghes.github.dispatches.length).toBe(before);
      const plain = await api(ghes.github, ghes.maintainer)("POST", DISPATCH, { ref: "main", inputs: { mission: "m-3" } });
      expect(plain.status).toBe(204);
      expect(ghes.github.dispatches.length).toBe(before + 1);
      ghes.github.assertNoViolations();
    } finally {
      await ghes.github.close();
    }
    const newer = await startDemo({ ghesVersion: "3.21" });
    try {
      expect((await api(newer.github, newer.maintainer)("POST", DISPATCH, { ref: "main", inputs: { mission: "m-4" }, return_run_details: true })).status).toBe(
        200,
      );
    } finally {
      await newer.github.close();
    }
  });

  it.each([
    ["a workflow missing from the default branch", "/repos/acme/demo/actions/workflows/other.yml/dispatches", { ref: "main" }, 404, "Not Found"],
    ["an unknown ref", DISPATCH, { ref: "nope", inputs: { mission: "m" } }, 422, "No ref found for: nope"],
    ["an input the workflow does not declare", DISPATCH, { ref: "main", inputs: { mission: "m", prompt: "x" } }, 422, 'Unexpected inputs provided: ["prompt"]'],
    ["a missing required input", DISPATCH, { ref: "main" }, 422, "Required input 'mission' not provided"],
    [
      "a value outside a choice",
      DISPATCH,
      { ref: "main", inputs: { mission: "m", mode: "x" } },
      422,
      "Provided value 'x' for input 'mode' not in the list of allowed values",
    ],
    ["inputs over 65,535 characters", DISPATCH, { ref: "main", inputs: { mission: "m".repeat(65_536) } }, 422, "inputs are too large."],
  ])("refuses %s", async (_, path, body, status, message) => {
    const before = demo.github.dispatches.length;
    const answer = await call("POST", path, body);
    expect(answer.status).toBe(status);
    expect(field(answer.body, "message")).toBe(message);
    expect(demo.github.dispatches).toHaveLength(before);
  });

  it("refuses more than 25 inputs (GitHub's schema limit, so also a violation)", async () => {
    const inputs = Object.fromEntries(Array.from({ length: 26 }, (_, i) => [`k${i}`, "v"]));
    expect((await call("POST", DISPATCH, { ref: "main", inputs })).status).toBe(422);
    expect(demo.github.violations.splice(0)).toHaveLength(1);
  });

  it("needs write access, or actions:write for an app token", async () => {
    expect((await api(demo.github, demo.outsider)("POST", DISPATCH, { ref: "main", inputs: { mission: "m" } })).status).toBe(403);
    const noActions = demo.github.issueAppToken({ owner: "acme", permissions: { contents: "write" } }).token;
    const refused = await api(demo.github, noActions)("POST", DISPATCH, { ref: "main", inputs: { mission: "m" } });
    expect(field(refused.body, "message")).toBe("Resource not accessible by integration");
  });
});

describe("runs and jobs", () => {
  it("shows the status and jobs the test hooks set, and cancels a running run once", async () => {
    await call("POST", DISPATCH, { ref: "main", inputs: { mission: "m-3" } });
    const runId = demo.github.dispatches.at(-1)?.runId ?? 0;
    demo.github.setRunStatus(runId, { status: "in_progress" });
    const jobId = demo.github.setJob(runId, { name: "work (users-api)", status: "in_progress" });
    demo.github.setJob(runId, { name: "work (orders-api)", status: "completed", conclusion: "success" });
    const jobs = await call("GET", `/repos/acme/demo/actions/runs/${runId}/jobs?per_page=1`);
    expect(jobs.body).toMatchObject({ total_count: 2, jobs: [{ id: jobId, name: "work (users-api)", status: "in_progress", run_id: runId }] });
    expect(jobs.headers.get("link")).toContain('rel="next"');

    expect((await call("POST", `/repos/acme/demo/actions/runs/${runId}/cancel`)).status).toBe(202);
    expect((await call("GET", `/repos/acme/demo/actions/runs/${runId}`)).body).toMatchObject({ status: "completed", conclusion: "cancelled" });
    const after = await call("GET", `/repos/acme/demo/actions/runs/${runId}/jobs`);
    expect((after.body as { jobs: { conclusion: string }[] }).jobs.map((j) => j.conclusion)).toEqual(["cancelled", "success"]);
    expect((await call("POST", `/repos/acme/demo/actions/runs/${runId}/cancel`)).status).toBe(409);
    expect((await call("GET", "/repos/acme/demo/actions/runs/1")).status).toBe(404);
  });
});
