/**
 * templates/naruto.yml as the simulator runs it, for what does not need the bundle: the run's
 * title names its phase and mission the way the App reads it (`missionOfRun`), and the
 * repository variable NARUTO_APP keeps the `command` job off comments when the App takes them.
 * naruto's own action steps are not run here (the simulator is told it cannot run them), so a
 * job that does run fails at that step, which is all these tests need to see that it ran.
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missionOfRun } from "../../src/app/run-events.ts";
import { workLegName } from "../../src/github-driver/mission-id.ts";
import { createActionsSimulator, formatRun, runUntilQuiet, type RunResult } from "../support/actions-sim/index.ts";
import { startFakeGitHub, type FakeGitHub } from "../support/fake-github/index.ts";

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
const notRun = () => false;

let fake: FakeGitHub;
let maintainer: string;

beforeAll(async () => {
  fake = await startFakeGitHub();
  maintainer = fake.addUser("octo-maintainer", { permission: "write" }).token;
  await fake.createRepo({
    owner: "acme",
    name: "demo",
    files: { "README.md": "# demo\n", ".github/workflows/naruto.yml": await readFile(new URL("../../templates/naruto.yml", import.meta.url), "utf8") },
    issues: [{ title: "An issue" }],
  });
});
afterAll(async () => fake.close());

async function commentRun(vars: Record<string, string>): Promise<RunResult> {
  const sim = await createActionsSimulator({ fake, repo: "acme/demo", actionDir: REPO_ROOT, vars, isLocalAction: notRun });
  try {
    const response = await fetch(`${fake.apiUrl}/repos/acme/demo/issues/1/comments`, {
      method: "POST",
      headers: { authorization: `token ${maintainer}`, "content-type": "application/json" },
      body: JSON.stringify({ body: "/naruto add a changelog" }),
    });
    const { id } = (await response.json()) as { id: number };
    const run = await sim.trigger({ event: "issue_comment", payload: fake.payloads.issueComment({ repo: "acme/demo", commentId: id }) });
    if (run === null) throw new Error("the template does not run on issue_comment");
    return run;
  } finally {
    await sim.close();
  }
}

describe("the workflow template", () => {
  it("handles /naruto comments in its command job, unless NARUTO_APP says the App does", async () => {
    const appless = await commentRun({});
    expect(appless.jobs.find((j) => j.job === "command")?.result, formatRun(appless, { withLogs: true })).toBe("failure");
    expect(appless.title).toBe("naruto issue_comment");

    const withApp = await commentRun({ NARUTO_APP: "true" });
    expect(
      withApp.jobs.map((j) => `${j.job}:${j.result}`),
      formatRun(withApp),
    ).toEqual(["command:skipped", "plan:skipped", "work:skipped", "watch:skipped", "review:skipped", "queue:skipped", "publish:skipped", "sweep:skipped"]);
  });

  it("watches a work run of two legs or more, unless the App does or NARUTO_WATCH says not to", async () => {
    const watch = async (items: string, vars: Record<string, string>) => {
      const sim = await createActionsSimulator({ fake, repo: "acme/demo", actionDir: REPO_ROOT, vars, isLocalAction: notRun });
      try {
        sim.takeDispatches();
        const response = await fetch(`${fake.apiUrl}/repos/acme/demo/actions/workflows/naruto.yml/dispatches`, {
          method: "POST",
          headers: { authorization: `token ${maintainer}`, "content-type": "application/json" },
          body: JSON.stringify({ ref: "main", inputs: { mission: "m-1a2b3c4d", phase: "work", items } }),
        });
        expect(response.status).toBe(204);
        const [run] = await runUntilQuiet({ fake, simulator: sim });
        const job = run?.jobs.find((j) => j.job === "watch");
        // Ran: it fails at naruto's own step, which this test does not run.
        return job?.result === "skipped" ? "skipped" : `ran as ${job?.name ?? "?"}`;
      } finally {
        await sim.close();
      }
    };
    const two = '[{"item":"docs","attempt":1},{"item":"api","attempt":2}]';
    expect(await watch(two, {})).toBe("ran as watch m-1a2b3c4d");
    expect(await watch('[{"item":"docs","attempt":1}]', {})).toBe("skipped");
    expect(await watch(two, { NARUTO_APP: "true" })).toBe("skipped");
    expect(await watch(two, { NARUTO_WATCH: "false" })).toBe("skipped");
  });

  it("titles a dispatched run and names each of its jobs with the mission, which the App reads back", async () => {
    const sim = await createActionsSimulator({ fake, repo: "acme/demo", actionDir: REPO_ROOT, isLocalAction: notRun });
    try {
      sim.takeDispatches();
      const response = await fetch(`${fake.apiUrl}/repos/acme/demo/actions/workflows/naruto.yml/dispatches`, {
        method: "POST",
        headers: { authorization: `token ${maintainer}`, "content-type": "application/json" },
        body: JSON.stringify({ ref: "main", inputs: { mission: "m-1a2b3c4d", phase: "work", items: '[{"item":"docs","attempt":1}]' } }),
      });
      expect(response.status).toBe(204);
      const [run] = await runUntilQuiet({ fake, simulator: sim });
      expect(run?.title).toBe("naruto work m-1a2b3c4d");
      expect(missionOfRun({ id: run?.id ?? 0, title: run?.title ?? null, headBranch: "main" })).toBe("m-1a2b3c4d");
      // workflow_job events carry no run title: the job's name must name the mission too.
      const ran = run?.jobs.filter((j) => j.result !== "skipped") ?? [];
      // The watch job and the App find a leg by this name (workLegName).
      expect(ran.map((j) => j.name)).toEqual([workLegName("m-1a2b3c4d", "docs", 1), "queue m-1a2b3c4d", "publish m-1a2b3c4d"]);
      for (const job of ran) expect(missionOfRun({ id: run?.id ?? 0, title: job.name, headBranch: "main" }), job.name).toBe("m-1a2b3c4d");
    } finally {
      await sim.close();
    }
  });

  it("runs each job where the repository's variables say: the agents' jobs on NARUTO_RUNS_ON_AGENTS, the others on NARUTO_RUNS_ON, ubuntu-latest unset", async () => {
    const labelsOf = async (vars: Record<string, string>, runnerLabels: readonly string[]) => {
      const sim = await createActionsSimulator({ fake, repo: "acme/demo", actionDir: REPO_ROOT, vars, isLocalAction: notRun, runnerLabels });
      try {
        sim.takeDispatches();
        const response = await fetch(`${fake.apiUrl}/repos/acme/demo/actions/workflows/naruto.yml/dispatches`, {
          method: "POST",
          headers: { authorization: `token ${maintainer}`, "content-type": "application/json" },
          body: JSON.stringify({
            ref: "main",
            inputs: { mission: "m-1a2b3c4d", phase: "work", items: '[{"item":"docs","attempt":1},{"item":"api","attempt":1}]' },
          }),
        });
        expect(response.status).toBe(204);
        const [run] = await runUntilQuiet({ fake, simulator: sim });
        return Object.fromEntries(
          (run?.jobs ?? [])
            .filter((j) => j.result !== "skipped")
            .map((j) => [j.name, `${(j.runsOn ?? []).join(",")}${j.reason?.includes("no runner has the labels") ? " (no runner)" : ""}`]),
        );
      } finally {
        await sim.close();
      }
    };
    const custom = { NARUTO_RUNS_ON_AGENTS: '["self-hosted", "naruto-arc"]', NARUTO_RUNS_ON: '"naruto-light"' };
    expect(await labelsOf(custom, ["self-hosted", "naruto-arc", "naruto-light"])).toEqual({
      [workLegName("m-1a2b3c4d", "docs", 1)]: "self-hosted,naruto-arc",
      [workLegName("m-1a2b3c4d", "api", 1)]: "self-hosted,naruto-arc",
      "watch m-1a2b3c4d": "naruto-light",
      "queue m-1a2b3c4d": "self-hosted,naruto-arc",
      "publish m-1a2b3c4d": "naruto-light",
    });
    expect(Object.values(await labelsOf({}, ["ubuntu-latest"]))).toEqual(["ubuntu-latest", "ubuntu-latest", "ubuntu-latest", "ubuntu-latest", "ubuntu-latest"]);
    // Hosted runners cannot take a job meant for the scale set: GitHub would leave it queued.
    expect(Object.values(await labelsOf(custom, ["ubuntu-latest"]))[0]).toBe(" (no runner)");
  });
});
