/**
 * The simulator on a small workflow of its own and a fixture JavaScript action: needs, outputs
 * (both GITHUB_OUTPUT forms), GITHUB_ENV, matrix from dispatch inputs, checkout without
 * credentials, artifacts, per-job token permissions, skipped and always() jobs, processes
 * left behind, and the fake's run and jobs.
 */
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeGitHub, type FakeGitHub } from "../fake-github/index.ts";
import { canIsolate, createActionsSimulator, formatRun, runUntilQuiet, type ActionsSimulator, type RunResult } from "./index.ts";
import { FIXTURE_ACTION, FIXTURE_WORKFLOW } from "./simulator.fixture.ts";

let fake: FakeGitHub;
let sim: ActionsSimulator | undefined;
let actionDir: string | undefined;
let maintainer: string;
/** Every token the simulator revoked, in order (it revokes each job's when the job ends). */
const revoked: string[] = [];

async function dispatch(inputs: Record<string, string>): Promise<RunResult> {
  const response = await fetch(`${fake.apiUrl}/repos/acme/demo/actions/workflows/naruto.yml/dispatches`, {
    method: "POST",
    headers: { authorization: `token ${maintainer}`, "content-type": "application/json" },
    body: JSON.stringify({ ref: "main", inputs }),
  });
  expect(response.status).toBe(204);
  if (sim === undefined) throw new Error("the simulator did not start");
  const runs = await runUntilQuiet({ fake, simulator: sim });
  expect(runs).toHaveLength(1);
  return runs[0] as RunResult;
}

beforeAll(async () => {
  fake = await startFakeGitHub();
  maintainer = fake.addUser("octo-maintainer", { permission: "write" }).token;
  const repo = await fake.createRepo({
    owner: "acme",
    name: "demo",
    files: { "README.md": "# demo\n", ".github/workflows/naruto.yml": FIXTURE_WORKFLOW },
    issues: [{ title: "First issue" }],
  });
  actionDir = await mkdtemp(join(tmpdir(), "sim-action-"));
  // Jobs run as an unprivileged user: the action must be readable by others, as a checkout is.
  await chmod(actionDir, 0o755);
  await writeFile(join(actionDir, "action.yml"), FIXTURE_ACTION.yml);
  await writeFile(join(actionDir, "index.mjs"), FIXTURE_ACTION.main);
  sim = await createActionsSimulator({ fake, repo: "acme/demo", actionDir, vars: { FAKE_REPO_DIR: repo.dir, ISOLATED: canIsolate() ? "yes" : "no" } });
  const revoke = fake.revokeToken.bind(fake);
  fake.revokeToken = (token) => {
    revoked.push(token);
    return revoke(token);
  };
});
afterAll(async () => {
  await sim?.close();
  await fake?.close();
  if (actionDir !== undefined) await rm(actionDir, { recursive: true, force: true });
});

describe("a workflow run", () => {
  let run: RunResult;
  beforeAll(async () => {
    run = await dispatch({
      items: JSON.stringify([
        { item: "a", attempt: 1 },
        { item: "b", attempt: 2 },
      ]),
    });
  });
  const job = (name: string) => {
    const found = run.jobs.find((j) => j.name === name);
    if (found === undefined) throw new Error(`no job ${name} in\n${formatRun(run)}`);
    return found;
  };

  it("runs the jobs in needs order, skipping the one whose if: is false", () => {
    expect(
      run.jobs.map((j) => `${j.name}:${j.result}`),
      formatRun(run, { withLogs: true }),
    ).toEqual([
      "prepare:success",
      "legs (a, 1):success",
      "legs (b, 2):success",
      "gather:success",
      "failing:skipped",
      "after-failure:skipped",
      "cleanup:success",
      "guarded:success",
    ]);
    expect(run.conclusion).toBe("success");
  });

  it("passes step outputs (heredoc form), GITHUB_ENV and job outputs through needs into action inputs", () => {
    expect(job("prepare").outputs).toEqual({ greeting: "hello\nworld" });
    expect(job("legs (a, 1)").steps.find((s) => s.id === "act")?.outputs["seen"]).toBe("a#1 says hello\nworld");
  });

  it("titles the run with its run-name", () => {
    expect(run.title).toBe(
      `sim legs ${JSON.stringify([
        { item: "a", attempt: 1 },
        { item: "b", attempt: 2 },
      ])} by octo-maintainer`,
    );
  });

  it("gives a JavaScript action the Actions runtime token, masked, and a run: step no token but what its env: passes", () => {
    const steps = job("legs (a, 1)").steps;
    const act = steps.find((s) => s.id === "act");
    expect(act?.outputs["runtime"]).toBe("a JWT");
    expect(act?.log).toContain("runtime=***");
    const plain = steps.find((s) => s.id === "plain");
    expect(plain?.conclusion, plain?.log).toBe("success");
    expect(plain?.outputs["seen"]).toBe("a#1 says hello\nworld");
  });

  it("mints each job's token with exactly its permissions", () => {
    expect(job("legs (a, 1)").permissions).toEqual({ metadata: "read", contents: "read", issues: "read" });
    expect(job("legs (a, 1)").steps.find((s) => s.id === "act")?.outputs["comment-status"]).toBe("403");
    expect(job("gather").steps.find((s) => s.id === "act")?.outputs["comment-status"]).toBe("201");
    const comments = [...fake.repo("acme/demo").comments.values()];
    expect(comments.map((c) => `${c.user.login}: ${c.body}`)).toEqual(["github-actions[bot]: hello from gather"]);
  });

  it("revokes each job's token when the job ends, as GitHub does", async () => {
    const ran = run.jobs.filter((j) => j.result !== "skipped");
    expect(revoked.length).toBeGreaterThanOrEqual(ran.length);
    for (const token of revoked) {
      const answer = await fetch(`${fake.apiUrl}/repos/acme/demo`, { headers: { authorization: `token ${token}` } });
      expect(answer.status).toBe(401);
    }
  });

  it("masks the token in logs", () => {
    const log = job("gather").steps.find((s) => s.id === "act")?.log ?? "";
    expect(log).toContain("token=***");
    expect(log).not.toMatch(/ghs_/);
  });

  it("downloads every artifact into path/<name>/ without hidden files", () => {
    const listing = job("gather").steps[1]?.log ?? "";
    expect(listing).toContain("all/leg-a/seen.txt:a#1 says hello");
    expect(listing).toContain("all/leg-b/seen.txt:b#2 says hello");
    expect(listing).not.toContain(".hidden");
  });

  it("kills what a job left running when the job ends", () => {
    expect(job("legs (a, 1)").orphansKilled).toBeGreaterThanOrEqual(1);
    expect(job("prepare").orphansKilled).toBe(0);
  });

  it("shows the run and its jobs in the fake GitHub", () => {
    const state = fake.repo("acme/demo").runs.get(run.id);
    expect(state?.status).toBe("completed");
    expect(state?.conclusion).toBe("success");
    expect(state?.jobs.map((j) => `${j.name}:${String(j.conclusion)}`)).toContain("legs (b, 2):success");
  });

  it("gives the run its run-name as its title in the API, as GitHub does", async () => {
    const answer = await fetch(`${fake.apiUrl}/repos/acme/demo/actions/runs/${run.id}`, { headers: { authorization: `token ${maintainer}` } });
    const body = (await answer.json()) as { display_title?: unknown; name?: unknown };
    expect(body.display_title).toBe(run.title);
    expect(body.name).toBe("sim-test"); // the workflow's name stays the name
  });
});

describe("repository variables", () => {
  it("skip a job whose if: tests one", async () => {
    if (actionDir === undefined) throw new Error("no action");
    const guarded = await createActionsSimulator({ fake, repo: "acme/demo", actionDir, vars: { SKIP_GUARDED: "true" } });
    // Both simulators read the fake's dispatches: each runs only the one meant for it.
    guarded.takeDispatches();
    try {
      const response = await fetch(`${fake.apiUrl}/repos/acme/demo/actions/workflows/naruto.yml/dispatches`, {
        method: "POST",
        headers: { authorization: `token ${maintainer}`, "content-type": "application/json" },
        body: JSON.stringify({ ref: "main", inputs: { items: "[]" } }),
      });
      expect(response.status).toBe(204);
      const runs = await runUntilQuiet({ fake, simulator: guarded });
      expect(runs).toHaveLength(1);
      expect(runs[0]?.jobs.find((j) => j.name === "guarded")?.result, runs[0] === undefined ? "" : formatRun(runs[0])).toBe("skipped");
    } finally {
      sim?.takeDispatches();
      await guarded.close();
    }
  });
});

describe("failures", () => {
  it("skips what needs a failed job, runs always() jobs, and fails the run", async () => {
    const run = await dispatch({ items: "[]", fail: "yes" });
    const results = Object.fromEntries(run.jobs.map((j) => [j.name, j.result]));
    expect(results, formatRun(run)).toMatchObject({ failing: "failure", "after-failure": "skipped", cleanup: "success", legs: "skipped" });
    expect(run.jobs.find((j) => j.name === "cleanup")?.steps[0]?.log).toContain("failing was failure");
    expect(run.conclusion).toBe("failure");
    expect(fake.repo("acme/demo").runs.get(run.id)?.conclusion).toBe("failure");
  });
});
