/**
 * The repository's runners, as GitHub hands them out (runners.ts): at most the quota of jobs run
 * at once, across runs, and the rest wait `queued`, first come first served, with no start of
 * their own (the jobs API gives a queued job its creation as `started_at`); each running job's
 * steps move in the jobs API as the runner reports them, so a polled jobs list changes (and is
 * not answered 304) while jobs run; a job whose `runs-on` no runner has fails at once, naming
 * the labels, where GitHub would leave it queued.
 */
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeGitHub, type FakeGitHub } from "../fake-github/index.ts";
import { createActionsSimulator, runUntilQuiet, type ActionsSimulator } from "./index.ts";
import { createRunnerPool, runsOnLabels } from "./runners.ts";

const ACTION_DIR = fileURLToPath(new URL("../../../", import.meta.url));
const LEGS = 6;

const workflow = (dir: string) => `name: quota
on:
  workflow_dispatch:
    inputs:
      label: { type: string, default: "ubuntu-latest" }
jobs:
  legs:
    name: leg \${{ matrix.n }}
    runs-on: \${{ fromJSON(format('["{0}"]', inputs.label)) }}
    strategy:
      matrix:
        n: [${Array.from({ length: LEGS }, (_, i) => i).join(", ")}]
    steps:
      - run: touch ${dir}/started-\${{ matrix.n }} && sleep 1
      - run: echo second step
`;

let fake: FakeGitHub;
let sim: ActionsSimulator;
let shared: string;
let dispatcher: string;

beforeAll(async () => {
  shared = await mkdtemp(join(tmpdir(), "sim-quota-"));
  await chmod(shared, 0o777);
  fake = await startFakeGitHub();
  dispatcher = fake.addUser("octo-maintainer", { permission: "write" }).token;
  await fake.createRepo({ owner: "acme", name: "quota", files: { ".github/workflows/naruto.yml": workflow(shared) } });
  sim = await createActionsSimulator({
    fake,
    repo: "acme/quota",
    actionDir: ACTION_DIR,
    sharedDirs: [shared],
    runnerQuota: 2,
    legConcurrency: LEGS,
    runnerLabels: ["ubuntu-latest", "naruto-arc"],
  });
});
afterAll(async () => {
  await sim?.close();
  await fake?.close();
  await rm(shared, { recursive: true, force: true });
});

async function dispatch(inputs: Record<string, string> = {}): Promise<void> {
  const response = await fetch(`${fake.apiUrl}/repos/acme/quota/actions/workflows/naruto.yml/dispatches`, {
    method: "POST",
    headers: { authorization: `token ${dispatcher}`, "content-type": "application/json" },
    body: JSON.stringify({ ref: "main", inputs }),
  });
  expect(response.status).toBe(204);
}

interface ApiJob {
  name: string;
  status: string;
  created_at: string;
  started_at: string;
  runner_name: string | null;
  labels: string[];
  steps: { name: string; status: string; number: number }[];
}

describe("the repository's runners", () => {
  it("run at most the quota of jobs at once; the rest wait queued, without a start of their own, in order; steps move as they run", async () => {
    await dispatch();
    const [record] = sim.takeDispatches();
    if (record === undefined) throw new Error("no dispatch recorded");
    const running = sim.runDispatch(record);
    const url = `${fake.apiUrl}/repos/acme/quota/actions/runs/${record.runId}/jobs?per_page=100`;
    const headers = { authorization: `token ${dispatcher}`, accept: "application/vnd.github+json" };
    const seen: ApiJob[][] = [];
    let etag: string | null = null;
    let polls = 0;
    let notModified = 0;
    let done = false;
    void running.then(() => void (done = true));
    while (!done) {
      const response = await fetch(url, { headers: etag === null ? headers : { ...headers, "if-none-match": etag } });
      polls += 1;
      if (response.status === 304) notModified += 1;
      else {
        etag = response.headers.get("etag");
        seen.push(((await response.json()) as { jobs: ApiJob[] }).jobs);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    const run = await running;
    expect(run.conclusion).toBe("success");
    seen.push(((await (await fetch(url, { headers })).json()) as { jobs: ApiJob[] }).jobs);

    // Never more than the quota under way; legs queued with their creation as their start.
    for (const jobs of seen) {
      expect(jobs.filter((j) => j.status === "in_progress").length).toBeLessThanOrEqual(2);
      for (const j of jobs.filter((x) => x.status === "queued")) {
        expect(j.started_at).toBe(j.created_at);
        expect(j.runner_name).toBeNull();
      }
    }
    expect(seen.some((jobs) => jobs.filter((j) => j.status === "queued").length >= LEGS - 2)).toBe(true);
    expect(sim.runners.peak).toBe(2);
    expect(sim.runners.peakWaiting).toBeGreaterThanOrEqual(LEGS - 2);

    // First come, first served: legs started in the order they were queued.
    const final = seen.at(-1) ?? [];
    expect(final.map((j) => j.status)).toEqual(Array.from({ length: LEGS }, () => "completed"));
    const byStart = [...final].sort((a, b) => a.started_at.localeCompare(b.started_at)).map((j) => j.name);
    expect(byStart.slice(0, 2).sort()).toEqual(["leg 0", "leg 1"]);
    expect(final.every((j) => j.runner_name?.startsWith("sim-runner-") === true && j.labels.includes("ubuntu-latest"))).toBe(true);
    expect(final[0]?.steps.map((s) => `${s.number} ${s.name} ${s.status}`)).toEqual([
      "1 Set up job completed",
      expect.stringMatching(/^2 Run .*touch .* completed$/),
      "3 Run echo second step completed",
      "4 Complete job completed",
    ]);

    // The list changes as jobs and their steps move: a step was seen under way, each full answer
    // differs from the one before (a 304 only while nothing moved), and more than one was seen.
    // How many full answers a poller sees depends on how fast the machine runs the steps, so the
    // test does not count them against the legs.
    expect(seen.some((jobs) => jobs.some((j) => j.steps.some((s) => s.status === "in_progress")))).toBe(true);
    for (let k = 1; k < seen.length - 1; k++) expect(JSON.stringify(seen[k])).not.toBe(JSON.stringify(seen[k - 1]));
    expect(polls - notModified).toBeGreaterThan(2);
    fake.assertNoViolations();
  });

  it("runs a job on a runner with every label of its runs-on, and fails at once one no runner can take", async () => {
    await dispatch({ label: "naruto-arc" });
    const [arc] = await runUntilQuiet({ fake, simulator: sim });
    expect(arc?.conclusion).toBe("success");
    expect(arc?.jobs.map((j) => j.runsOn)).toEqual(Array.from({ length: LEGS }, () => ["naruto-arc"]));
    await dispatch({ label: "gpu-large" });
    const [nowhere] = await runUntilQuiet({ fake, simulator: sim });
    expect(nowhere?.conclusion).toBe("failure");
    expect(nowhere?.jobs[0]?.reason).toContain('no runner has the labels ["gpu-large"] of its runs-on');
  });
});

describe("a runner pool", () => {
  it("hands runners out first come, first served", async () => {
    const pool = createRunnerPool({ quota: 1, labels: ["ubuntu-latest"] });
    const order: string[] = [];
    const first = await pool.acquire();
    const waiting = ["b", "c"].map((name) => pool.acquire().then((r) => (order.push(name), r)));
    expect(pool.waiting).toBe(2);
    first.release();
    (await waiting[0])?.release();
    (await waiting[1])?.release();
    expect(order).toEqual(["b", "c"]);
    expect(pool.peak).toBe(1);
  });

  it("reads runs-on as a label, a list or a group's labels", () => {
    expect(runsOnLabels("ubuntu-latest")).toEqual(["ubuntu-latest"]);
    expect(runsOnLabels(["self-hosted", "x64"])).toEqual(["self-hosted", "x64"]);
    expect(runsOnLabels({ group: "big", labels: "gpu" })).toEqual(["gpu"]);
  });
});
