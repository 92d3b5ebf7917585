/**
 * A whole mission through the modes, each as its job would run it (its token, its checkout, its
 * artifact handed on): command → plan → queue+publish → work (alpha) → queue+publish → work
 * (beta, which needs alpha, so it must start from a queue holding alpha) → queue+publish →
 * review → queue+publish.
 * It ends with both checkpoints on the queue branch, the queue pull request, the verdict comment
 * on it and a check run on the queue head, and no push from any read-only job.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commandMode } from "../../src/action/modes/command.ts";
import { preparePlan } from "../../src/action/modes/plan.ts";
import { prepareReview } from "../../src/action/modes/review.ts";
import type { DispatchInput } from "../../src/action/deps.ts";
import { gitText } from "../../src/git/run-git.ts";
import { testGit } from "../support/git-repo.ts";
import { BOT, newFolder, REPO, startWorld, testConfig, type World } from "./world.ts";

let world: World;
beforeAll(async () => {
  world = await startWorld({ config: testConfig("queue:\n  verify: test ! -e src || test -f src/alpha.ts\n") });
});
afterAll(async () => world.close());

const PLAN = [
  "version: 1",
  "title: Two files",
  "items:",
  "  - id: alpha",
  "    writes: [src/alpha.ts]",
  "    prompt: |",
  '      create src/alpha.ts "export const alpha = 1;\\n"',
  "  - id: beta",
  "    writes: [src/beta.ts]",
  "    after: [alpha]",
  "    prompt: |",
  '      create src/beta.ts "export const beta = 2;\\n"',
].join("\n");

async function integrate(mission: string, dispatch: DispatchInput, artifacts: string) {
  return (await world.integrate(mission, dispatch, artifacts)).publish;
}

async function work(mission: string, item: string, attempt: number): Promise<string> {
  const artifacts = await world.workRun(mission, item, attempt);
  await integrate(mission, { phase: "work", items: [{ item, attempt }] }, artifacts);
  return artifacts;
}

describe("a mission through the Action's jobs", () => {
  // A whole mission of jobs: ~25 s here, over a minute on a machine loaded twice over (a hang guard, not a time limit).
  it("plans, works, integrates in dependency order, reviews, and posts the verdict", { timeout: 180_000 }, async () => {
    const event = await world.comment("octo-maintainer", `/naruto make two files\n\n\`\`\`naruto\n${PLAN}\n\`\`\``);
    const command = await world.job("command");
    const started = await commandMode(command.deps, { event, selfLogins: [BOT], pullRequestHead: async () => null });
    if (started.kind !== "mission") throw new Error(`no mission: ${JSON.stringify(started)}`);
    const id = started.mission;

    const planJob = await world.job("agent", { checkout: `naruto/${id}` });
    await preparePlan(planJob.deps, { mission: id });
    await world.agentStep(planJob);
    const planArtifacts = await newFolder("naruto-artifacts-");
    await world.upload(planJob, planArtifacts, "naruto-plan");
    const afterPlan = await integrate(id, { phase: "plan", items: [] }, planArtifacts);
    expect(JSON.parse(afterPlan.log.outputs["matrix"] ?? "")).toEqual([{ item: "alpha", attempt: 1 }]);
    let mission = await world.mission(id);
    expect(mission.status).toBe("running");
    expect(mission.items.map((i) => [i.id, i.status])).toEqual([
      ["alpha", "running"],
      ["beta", "pending"],
    ]);
    // Dispatched: its run is known, its job has not started yet.
    expect(mission.items[0]?.attempts[0]).toMatchObject({ status: "dispatched", runner: expect.stringMatching(/\/actions\/runs\/\d+$/) });
    const workDispatch = world.fake.dispatches.at(-1);
    expect(workDispatch?.inputs).toEqual({ mission: id, phase: "work", items: JSON.stringify([{ item: "alpha", attempt: 1 }]), run: "" });

    await work(id, "alpha", 1);
    mission = await world.mission(id);
    const alphaCommit = mission.items[0]?.commit;
    expect(mission.items.map((i) => [i.id, i.status])).toEqual([
      ["alpha", "integrated"],
      ["beta", "running"],
    ]);
    expect(await world.ref(`refs/heads/naruto/${id}`)).toBe(mission.queue.head);
    expect(await world.ref(`refs/heads/naruto/${id}--alpha`)).toBe(mission.items[0]?.attempts[0]?.checkpoint);
    // The base first (green: no src yet), then alpha's batch.
    expect(mission.queue.verify_runs).toBe(2);
    expect(mission.queue.base_check).toMatchObject({ commit: mission.base.commit, green: true });

    await work(id, "beta", 1);
    mission = await world.mission(id);
    expect(mission.status).toBe("reviewing");
    expect(world.fake.dispatches.at(-1)?.inputs).toEqual({ mission: id, phase: "review", items: "[]", run: "" });
    // beta started from a queue that held alpha: its checkpoint's parent is alpha's queue commit.
    expect(mission.items[1]?.attempts[0]?.base).toBe(alphaCommit);

    const reviewJob = await world.job("agent", { checkout: `naruto/${id}` });
    await prepareReview(reviewJob.deps, { mission: id });
    await world.agentStep(reviewJob);
    const reviewArtifacts = await newFolder("naruto-artifacts-");
    await world.upload(reviewJob, reviewArtifacts, "naruto-review");
    await integrate(id, { phase: "review", items: [] }, reviewArtifacts);

    mission = await world.mission(id);
    expect(mission).toMatchObject({ status: "done", verdict: { verdict: "approve" } });
    const repo = world.fake.repo(REPO);
    const pull = [...repo.pulls.values()].find((p) => p.headRef === `naruto/${id}`);
    expect(pull?.baseRef).toBe("main");
    const verdict = [...repo.comments.values()].find((c) => c.issueNumber === pull?.number && c.body.startsWith(`<!-- naruto:verdict:${id} -->`));
    expect(verdict?.body).toContain("naruto verdict: approve");
    const checks = [...repo.checkRuns.values()].filter((c) => c.headSha === mission.queue.head);
    expect(checks.map((c) => [c.name, c.conclusion])).toEqual([["naruto", "success"]]);
    const tracking = [...repo.comments.values()].filter((c) => c.body.startsWith(`<!-- naruto:tracking:${id} -->`));
    expect(tracking).toHaveLength(1);
    expect(tracking[0]?.body).toContain("· done ·");

    // The queue holds both files, one commit per item on top of the base.
    const clone = await newFolder("naruto-verify-");
    const git = testGit();
    await gitText(git, { args: ["clone", "-q", "--branch", `naruto/${id}`, world.fake.gitUrl(REPO, world.fake.tokenFor("octo-maintainer")), "q"], cwd: clone });
    expect(await readFile(join(clone, "q/src/beta.ts"), "utf8")).toBe("export const beta = 2;\n");
    expect(await gitText(git, { args: ["rev-list", "--count", `${mission.base.commit}..HEAD`], cwd: join(clone, "q") })).toBe("2");
  });
});

describe("an attempt that times out in its work job", () => {
  it("keeps the work it left on a branch of its own, named in its reason, and tries again", async () => {
    const slow = `mkdir -p src && echo half > src/alpha.ts && exec sleep 30`;
    const own = await startWorld({
      config: `agents:\n  default:\n    command: "true"\n  slow:\n    command: ${JSON.stringify(slow)}\n    timeout: 2s\nlimits:\n  max_attempts: 2\n  item_timeout: 10m\n`,
    });
    try {
      const plan = "version: 1\ntitle: One slow file\nitems:\n  - id: alpha\n    writes: [src/alpha.ts]\n    agent: slow\n";
      const id = await own.plannedMission(`/naruto one file\n\n\`\`\`naruto\n${plan}\`\`\``);

      await own.integrate(id, { phase: "work", items: [{ item: "alpha", attempt: 1 }] }, await own.workRun(id, "alpha"));

      const mission = await own.mission(id);
      const [first, second] = mission.items[0]?.attempts ?? [];
      const branch = `naruto-attempts/${id}/alpha/1`;
      const kept = await own.ref(`refs/heads/${branch}`);
      expect(first).toMatchObject({
        status: "timed_out",
        reason: `timed out after 2 s; its partial work is kept at the branch ${branch} (${kept?.slice(0, 12)})`,
      });
      expect(second?.status).toBe("dispatched"); // tried again (its job not started yet)
      // The branch holds what the agent wrote before the timeout, on top of the attempt's base; the queue did not move.
      const clone = await newFolder("naruto-verify-");
      const git = testGit();
      await gitText(git, { args: ["clone", "-q", "--branch", branch, own.fake.gitUrl(REPO, own.fake.tokenFor("octo-maintainer")), "k"], cwd: clone });
      expect(await readFile(join(clone, "k/src/alpha.ts"), "utf8")).toBe("half\n");
      expect(await gitText(git, { args: ["rev-parse", "HEAD^"], cwd: join(clone, "k") })).toBe(first?.base);
      expect(await own.ref(`refs/heads/naruto/${id}`)).toBe(mission.base.commit);
    } finally {
      await own.close();
    }
  });
});
