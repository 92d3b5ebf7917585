/**
 * Artifacts in the simulator as GitHub has them: uploaded as zips through the results service
 * with a job's `ACTIONS_RUNTIME_TOKEN` (by whatever process holds it, while the job runs), one
 * name per run unless `overwrite`; downloaded from this run without a token, or from another run
 * with `run-id` and a token that may read Actions, through REST calls that count (a list, then
 * one call per artifact); and the jobs API showing each job's steps with their times, and the
 * job's id as `job.check_run_id`.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeGitHub, type FakeGitHub } from "../fake-github/index.ts";
import { listZipEntries } from "../../../src/action/artifact-zip.ts";
import { writeZip } from "../zip.ts";
import { createActionsSimulator, formatRun, runUntilQuiet, type ActionsSimulator, type RunResult } from "./index.ts";

const WORKFLOW = `name: cross
on:
  workflow_dispatch:
    inputs:
      from:
        type: string
        default: ""
permissions: {}
jobs:
  up:
    if: inputs.from == ''
    runs-on: ubuntu-latest
    steps:
      - name: make files
        run: mkdir -p out && echo "from the first run" > out/a.txt && echo other > b.txt && echo "job \${{ job.check_run_id }}"
      - uses: actions/upload-artifact@v6
        with:
          name: naruto-work-a-1
          path: out
      - uses: actions/upload-artifact@v6
        with:
          name: naruto-queue
          path: b.txt
      - id: clash
        continue-on-error: true
        uses: actions/upload-artifact@v6
        with:
          name: naruto-queue
          path: out
      - name: naruto upload
        uses: actions/upload-artifact@v6
        with:
          name: naruto-queue
          path: out
          overwrite: true
  down:
    if: inputs.from != ''
    runs-on: ubuntu-latest
    permissions:
      actions: read
    steps:
      - uses: actions/download-artifact@v7
        with:
          path: got
          run-id: \${{ inputs.from }}
          github-token: \${{ github.token }}
          pattern: naruto-work-*
      - run: cat got/naruto-work-a-1/a.txt && test ! -e got/naruto-queue
  denied:
    if: inputs.from != ''
    runs-on: ubuntu-latest
    permissions:
      contents: read
    steps:
      - uses: actions/download-artifact@v7
        with:
          path: got
          run-id: \${{ inputs.from }}
          github-token: \${{ github.token }}
  own:
    if: inputs.from != ''
    runs-on: ubuntu-latest
    steps:
      - uses: actions/download-artifact@v7
        with:
          path: got
          run-id: \${{ inputs.from }}
      - run: test ! -e got/naruto-work-a-1
`;

let fake: FakeGitHub;
let sim: ActionsSimulator;
/** The `up` job's runtime token, used by a "process" of that job (the step hook) and again after the job. */
let upToken = "";
let hookUpload = 0;
let actionDir: string;
let maintainer: string;

async function dispatch(inputs: Record<string, string>): Promise<RunResult> {
  const response = await fetch(`${fake.apiUrl}/repos/acme/cross/actions/workflows/cross.yml/dispatches`, {
    method: "POST",
    headers: { authorization: `token ${maintainer}`, "content-type": "application/json" },
    body: JSON.stringify({ ref: "main", inputs }),
  });
  expect(response.status).toBe(204);
  const runs = await runUntilQuiet({ fake, simulator: sim });
  expect(runs).toHaveLength(1);
  return runs[0] as RunResult;
}

beforeAll(async () => {
  fake = await startFakeGitHub();
  maintainer = fake.addUser("octo-maintainer", { permission: "write" }).token;
  await fake.createRepo({ owner: "acme", name: "cross", files: { "README.md": "# cross\n", ".github/workflows/cross.yml": WORKFLOW } });
  actionDir = await mkdtemp(join(tmpdir(), "sim-cross-"));
  sim = await createActionsSimulator({
    fake,
    repo: "acme/cross",
    actionDir,
    workflowPath: ".github/workflows/cross.yml",
    stepHook: async (info) => {
      if (info.job !== "up" || info.phase !== "after" || upToken !== "") return;
      upToken = info.runtimeToken;
      const answer = await fetch(`${info.resultsUrl}artifacts?name=planted`, {
        method: "POST",
        headers: { authorization: `Bearer ${info.runtimeToken}` },
        body: new Uint8Array(writeZip([{ name: "x.txt", data: "from any process" }])),
      });
      hookUpload = answer.status;
    },
  });
});
afterAll(async () => {
  await sim?.close();
  await fake?.close();
  await rm(actionDir, { recursive: true, force: true });
});

describe("artifacts in the simulator", () => {
  let first: RunResult;
  beforeAll(async () => {
    first = await dispatch({});
  });

  it("are uploaded by whoever holds the job's runtime token, while the job runs; one name per run unless overwritten", async () => {
    expect(first.conclusion, formatRun(first, { withLogs: true })).toBe("success");
    expect(hookUpload).toBe(201);
    const after = await fetch(`${fake.url}/_actions/results/artifacts?name=late`, {
      method: "POST",
      headers: { authorization: `Bearer ${upToken}` },
      body: new Uint8Array(writeZip([])),
    });
    expect(after.status).toBe(401);
    const up = first.jobs.find((j) => j.name === "up");
    expect(up?.steps.find((s) => s.id === "clash")?.outcome).toBe("failure");
    expect(up?.steps.find((s) => s.id === "clash")?.log).toContain("(409) Conflict");
    const stored = fake.artifacts("acme/cross", first.id);
    expect(stored.map((a) => a.name).sort()).toEqual(["naruto-queue", "naruto-work-a-1", "planted"]);
    const queue = stored.find((a) => a.name === "naruto-queue");
    expect(listZipEntries(queue?.zip ?? Buffer.alloc(0), 8).map((e) => e.name)).toEqual(["a.txt"]);
  });

  it("show each job's steps with their times in the jobs API, and the job's id as job.check_run_id", async () => {
    const answer = await fetch(`${fake.apiUrl}/repos/acme/cross/actions/runs/${first.id}/jobs`, { headers: { authorization: `token ${maintainer}` } });
    const { jobs } = (await answer.json()) as {
      jobs: {
        id: number;
        name: string;
        steps: { name: string; status: string; conclusion: string | null; started_at: string | null; completed_at: string | null }[];
      }[];
    };
    const up = jobs.find((j) => j.name === "up");
    expect(up?.steps.map((s) => [s.name, s.status, s.conclusion])).toEqual([
      ["Set up job", "completed", "success"],
      ["make files", "completed", "success"],
      ["Run actions/upload-artifact@v6", "completed", "success"],
      ["Run actions/upload-artifact@v6", "completed", "success"],
      ["Run actions/upload-artifact@v6", "completed", "success"],
      ["naruto upload", "completed", "success"],
      ["Complete job", "completed", "success"],
    ]);
    expect(up?.steps.every((s) => s.started_at !== null && s.completed_at !== null)).toBe(true);
    expect(first.jobs.find((j) => j.name === "up")?.steps[0]?.log).toContain(`job ${up?.id}`);
  });

  it("from another run: with a token that may read Actions, through counted REST calls; refused without", async () => {
    const before = fake.requests.length;
    const second = await dispatch({ from: String(first.id) });
    const job = (name: string) => second.jobs.find((j) => j.name === name);
    expect(job("down")?.result, formatRun(second, { withLogs: true })).toBe("success");
    expect(
      job("down")
        ?.steps.map((s) => s.log)
        .join(""),
    ).toContain("from the first run");
    expect(job("denied")?.result).toBe("failure");
    expect(job("denied")?.steps[0]?.log).toMatch(/\((403|404)\)/);
    // Without a token, run-id does not count: this run's own artifacts (none).
    expect(job("own")?.result, formatRun(second, { withLogs: true })).toBe("success");
    // `down`: one page of the run's artifacts, then the one artifact the pattern takes.
    const rest = fake.requests
      .slice(before)
      .filter((r) => (r.kind === "rest" && r.status === 200) || r.status === 302)
      .map((r) => r.operation);
    expect(rest.filter((op) => op === "GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts")).toHaveLength(1);
    expect(rest.filter((op) => op === "GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}")).toHaveLength(1);
  });
});
