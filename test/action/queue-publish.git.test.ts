/**
 * The queue job builds and verifies without a write token; the publish job, which holds one,
 * rebuilds the same commits from the checkpoints it checked itself and takes the queue job's
 * result only if its commits are exactly those (docs/architecture.md). A queue job's artifact changed on
 * its way (what code the queue's verify ran could upload) is refused, and nothing of it reaches
 * GitHub; a queue that moved meanwhile leaves the checkpoints waiting for a run that builds anew.
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { QueueRecord } from "../../src/action/integrate/queue-record.ts";
import { gitText } from "../../src/git/run-git.ts";
import { runIdOf } from "../../src/github-driver/mission-id.ts";
import { testGit } from "../support/git-repo.ts";
import { newFolder, REPO, startWorld, testConfig, type Job, type World } from "./world.ts";

let world: World;
beforeAll(async () => {
  // Enough attempts for one item to meet every forged queue result in turn.
  world = await startWorld({
    config: testConfig("queue:\n  verify: test ! -e src || test -f src/alpha.ts || test -f src/beta.ts\n").replace("max_attempts: 2", "max_attempts: 7"),
  });
});
afterAll(async () => world.close());

const git = testGit();
const plan = (ids: readonly string[]) =>
  [
    "version: 1",
    "title: Files",
    "items:",
    ...ids.flatMap((id) => [`  - id: ${id}`, `    writes: [src/${id}.ts]`, "    prompt: |", `      create src/${id}.ts "export const ${id} = 1;\\n"`]),
  ].join("\n");

/** A mission through its plan run, with every item's first attempt dispatched. */
const started = (ids: readonly string[]) => world.plannedMission(`/naruto files\n\n\`\`\`naruto\n${plan(ids)}\n\`\`\``);
const worked = (mission: string, item: string, n = 1) => world.workRun(mission, item, n);

const recordPath = (artifacts: string) => join(artifacts, "naruto-queue", "queue.json");
const readRecord = async (artifacts: string) => JSON.parse(await readFile(recordPath(artifacts), "utf8")) as QueueRecord;

/**
 * Rewrites the queue job's artifact with `forge(record head) → commit`, as a compromised queue job
 * would: the record names the forged head and the bundle holds it.
 */
async function forgeQueue(artifacts: string, queue: Job, mission: string, forge: (head: string, dir: string) => Promise<string>): Promise<string> {
  const record = await readRecord(artifacts);
  const dir = queue.deps.workspace;
  const forged = await forge(record.head, dir);
  await gitText(git, { args: ["update-ref", `refs/heads/naruto/${mission}`, forged], cwd: dir });
  const bundle = join(artifacts, "naruto-queue", "queue.bundle");
  await rm(bundle, { force: true });
  await gitText(git, { args: ["bundle", "create", bundle, `refs/heads/naruto/${mission}`, `^${record.start_head}`], cwd: dir });
  await writeFile(recordPath(artifacts), JSON.stringify({ ...record, head: forged }));
  return forged;
}

const commitTree = (dir: string, tree: string, parent: string, message: string) =>
  gitText(git, {
    args: ["commit-tree", tree, "-p", parent, "-m", message],
    cwd: dir,
    env: { GIT_AUTHOR_NAME: "x", GIT_AUTHOR_EMAIL: "x@x", GIT_COMMITTER_NAME: "x", GIT_COMMITTER_EMAIL: "x@x" },
  });

const FORGERIES: Readonly<Record<string, (head: string, dir: string) => Promise<string>>> = {
  "an extra commit": async (head, dir) => {
    const blob = await gitText(git, { args: ["hash-object", "-w", "--stdin"], cwd: dir, input: "evil\n" });
    const tree = await gitText(git, {
      args: ["mktree"],
      cwd: dir,
      input: `${await gitText(git, { args: ["ls-tree", head], cwd: dir })}\n100644 blob ${blob}\tevil.sh\n`,
    });
    return commitTree(dir, tree, head, "naruto: nothing to see");
  },
  "a changed tree": async (head, dir) => {
    const message = await gitText(git, { args: ["log", "-1", "--format=%B", head], cwd: dir });
    const blob = await gitText(git, { args: ["hash-object", "-w", "--stdin"], cwd: dir, input: "evil\n" });
    const tree = await gitText(git, {
      args: ["mktree"],
      cwd: dir,
      input: `${await gitText(git, { args: ["ls-tree", `${head}^`], cwd: dir })}\n100644 blob ${blob}\tevil.sh\n`,
    });
    return commitTree(dir, tree, `${head}^`, message);
  },
  "a commit that differs by its message only": async (head, dir) => {
    const message = await gitText(git, { args: ["log", "-1", "--format=%B", head], cwd: dir });
    return commitTree(dir, `${head}^{tree}`, `${head}^`, `${message}\n\nApproved-By: everyone`);
  },
};

describe("publish takes the queue job's result only as it rebuilds it", () => {
  it("publishes what the queue job built and verified, having run nothing itself", async () => {
    const id = await started(["alpha"]);
    const artifacts = await worked(id, "alpha");
    const { queue, publish } = await world.integrate(id, { phase: "work", items: [{ item: "alpha", attempt: 1 }] }, artifacts);
    const record = await readRecord(artifacts);
    const mission = await world.mission(id);
    expect(mission.items[0]?.status).toBe("integrated");
    expect(record).toMatchObject({
      start_head: mission.base.commit,
      head: mission.queue.head,
      verify: [
        { commit: mission.base.commit, exit_code: 0 },
        { commit: mission.queue.head, exit_code: 0 },
      ],
    });
    expect(await world.ref(`refs/heads/naruto/${id}`)).toBe(record.head);
    // The verify command ran in the queue job's token-less step, and publish said nothing of running it.
    expect(queue.log.lines.join("\n")).toContain(`verify of ${record.head.slice(0, 12)}: green`);
    expect(publish.log.lines.join("\n")).not.toMatch(/sandbox|verify of/);
  });

  it("refuses every result that is not the one it rebuilds: the queue does not move, nothing forged reaches GitHub, the item is tried again", {
    timeout: 240_000,
  }, async () => {
    const id = await started(["alpha"]);
    const tampered: Readonly<Record<string, { tamper: (folder: string, queue: Job) => Promise<string | null>; reason: RegExp }>> = {
      ...Object.fromEntries(
        Object.entries(FORGERIES).map(([name, forge]) => [
          name,
          {
            tamper: (folder: string, queue: Job) => forgeQueue(folder, queue, id, forge),
            reason: /its (queue head [0-9a-f]{12} is not [0-9a-f]{12}, the one rebuilt here from the checked checkpoints|bundle holds .*)/,
          },
        ]),
      ),
      "green for a candidate it never verified": {
        tamper: async (folder) => (await writeFile(recordPath(folder), JSON.stringify({ ...(await readRecord(folder)), verify: [] })), null),
        reason: /it has no verify result for the candidate [0-9a-f]{12} that its own checkpoints give/,
      },
      "no result at all": {
        tamper: async (folder) => (await rm(join(folder, "naruto-queue"), { recursive: true, force: true }), null),
        reason: /the queue job left no result .*so no candidate is verified/,
      },
    };
    let n = 0;
    for (const [name, { tamper, reason }] of Object.entries(tampered)) {
      n += 1;
      const artifacts = await worked(id, "alpha", n);
      let forged: string | null = null;
      const { publish } = await world.integrate(id, { phase: "work", items: [{ item: "alpha", attempt: n }] }, artifacts, {
        beforePublish: async (folder, queue) => {
          forged = await tamper(folder, queue);
        },
      });
      const mission = await world.mission(id);
      expect(await world.ref(`refs/heads/naruto/${id}`), name).toBe(mission.base.commit);
      if (forged !== null) {
        const onGitHub = await gitText(git, { args: ["cat-file", "-e", `${forged}^{commit}`], cwd: world.fake.repo(REPO).dir }).then(
          () => true,
          () => false,
        );
        expect(onGitHub, `${name}: the forged commit is on GitHub`).toBe(false);
      }
      const attempts = mission.items[0]?.attempts ?? [];
      expect(
        attempts.map((a) => a.status),
        name,
      ).toEqual([...Array.from({ length: n }, () => "verify_failed"), "dispatched"]);
      const why = attempts[n - 1]?.reason ?? "";
      expect(why, name).toMatch(/^queue verification failed:\nthe queue job's result was refused: .*; nothing of it was pushed$/);
      expect(why, name).toMatch(reason);
      expect(publish.log.lines.join("\n"), name).toContain("the queue job's result was refused");
    }
    // The next attempt, untouched, is published.
    n += 1;
    await world.integrate(id, { phase: "work", items: [{ item: "alpha", attempt: n }] }, await worked(id, "alpha", n));
    expect((await world.mission(id)).items[0]?.status).toBe("integrated");
  });

  it("leaves the checkpoints waiting when another run published first, and an integrate-only run builds them anew", { timeout: 180_000 }, async () => {
    const id = await started(["alpha", "beta"]);
    const alpha = await worked(id, "alpha");
    const beta = await worked(id, "beta");
    // beta's queue job reads the queue before alpha's run publishes.
    const betaRun = await world.runOf(id, "beta");
    const betaQueue = await world.job("queue", { checkout: "main", run: betaRun });
    const { prepareQueue } = await import("../../src/action/modes/queue.ts");
    await prepareQueue(betaQueue.deps, { mission: id, dispatch: { phase: "work", items: [{ item: "beta", attempt: 1 }] } });
    await world.agentStep(betaQueue);
    await world.upload(betaQueue, beta, "naruto-queue");
    await world.integrate(id, { phase: "work", items: [{ item: "alpha", attempt: 1 }] }, alpha);
    const afterAlpha = (await world.mission(id)).queue.head;

    const dispatches = world.fake.dispatches.length;
    const publish = await world.job("publish", { checkout: "main", run: betaRun });
    const { publishMode } = await import("../../src/action/modes/publish.ts");
    await publishMode(publish.deps, { mission: id, artifacts: beta, dispatch: { phase: "work", items: [{ item: "beta", attempt: 1 }] } });
    let mission = await world.mission(id);
    expect(mission.items.map((i) => [i.id, i.attempts.at(-1)?.status])).toEqual([
      ["alpha", "integrated"],
      ["beta", "integrating"],
    ]);
    expect(await world.ref(`refs/heads/naruto/${id}`)).toBe(afterAlpha);
    expect(publish.log.lines.join("\n")).toMatch(/the queue job built on [0-9a-f]{12} .*the queue is now at [0-9a-f]{12}/);
    expect(world.fake.dispatches.slice(dispatches).map((d) => d.inputs)).toEqual([{ mission: id, phase: "work", items: "[]", run: "" }]);

    // The integrate-only run: its queue job builds beta on the queue as it is now.
    await world.integrate(id, { phase: "work", items: [] }, await newFolder("naruto-artifacts-"));
    mission = await world.mission(id);
    expect(mission.items.map((i) => [i.id, i.status])).toEqual([
      ["alpha", "integrated"],
      ["beta", "integrated"],
    ]);
    expect(await gitText(git, { args: ["rev-parse", `refs/heads/naruto/${id}^`], cwd: world.fake.repo(REPO).dir })).toBe(afterAlpha);
  });

  /**
   * The integrate run the App started when beta's leg ended: its queue job takes both legs and
   * reads the queue before alpha's own work run publishes alpha; then its publish. Queue commits
   * are the same bytes whenever the same checkpoints go onto the same head in the same second
   * (the committer line holds the queue job's clock, in seconds): each queue job's clock is given.
   */
  async function integrateRunAfterAlpha(clocks: { integrate: number; alpha: number }) {
    const id = await started(["alpha", "beta"]);
    const run = runIdOf((await world.mission(id)).items[0]?.attempts[0]?.runner ?? null)!;
    const alpha = await worked(id, "alpha");
    const beta = await worked(id, "beta");
    const integrate = { phase: "integrate" as const, items: [], run };
    const betaQueue = await world.job("queue", { checkout: "main", now: () => new Date(clocks.integrate) });
    const { prepareQueue } = await import("../../src/action/modes/queue.ts");
    await prepareQueue(betaQueue.deps, { mission: id, dispatch: integrate });
    await world.agentStep(betaQueue);
    await world.upload(betaQueue, beta, "naruto-queue");
    await world.integrate(id, { phase: "work", items: [{ item: "alpha", attempt: 1 }] }, alpha, { now: () => new Date(clocks.alpha) });

    const dispatches = world.fake.dispatches.length;
    const publish = await world.job("publish", { checkout: "main" });
    const { publishMode } = await import("../../src/action/modes/publish.ts");
    await publishMode(publish.deps, { mission: id, artifacts: beta, dispatch: integrate });
    return { id, mission: await world.mission(id), record: await readRecord(beta), dispatched: world.fake.dispatches.slice(dispatches).map((d) => d.inputs) };
  }

  it("asks for an integrate-only run when an integrate run lost the race too", { timeout: 180_000 }, async () => {
    // alpha's run a second later: its queue commit for alpha is not the one the integrate run built beta on.
    const now = Date.now();
    const { id, mission, record, dispatched } = await integrateRunAfterAlpha({ integrate: now - 1000, alpha: now });
    expect(mission.items.map((i) => [i.id, i.attempts.at(-1)?.status])).toEqual([
      ["alpha", "integrated"],
      ["beta", "integrating"],
    ]);
    expect(await world.ref(`refs/heads/naruto/${id}`)).toBe(mission.queue.head);
    expect(mission.queue.head).not.toBe(record.head);
    expect(dispatched).toEqual([{ mission: id, phase: "work", items: "[]", run: "" }]);
  });

  it("takes an integrate run's result when the run that won the race wrote the very queue commits it built on", { timeout: 180_000 }, async () => {
    // Both queue jobs in the same second: alpha's queue commit is the integrate run's, and so is
    // beta's on it, which the integrate run verified: nothing is built again.
    const now = Date.now();
    const { id, mission, record, dispatched } = await integrateRunAfterAlpha({ integrate: now, alpha: now });
    expect(mission.items.map((i) => [i.id, i.attempts.at(-1)?.status])).toEqual([
      ["alpha", "integrated"],
      ["beta", "integrated"],
    ]);
    expect(mission.queue.head).toBe(record.head);
    expect(await world.ref(`refs/heads/naruto/${id}`)).toBe(record.head);
    expect(dispatched.map((d) => d["phase"])).toEqual(["review"]);
  });
});

describe("a checkpoint GitHub refuses to take", () => {
  it("fails its attempt with GitHub's words instead of failing the job and leaving the attempt in flight", async () => {
    // The config lets items write workflows; GitHub does not let the job's token push them.
    const own = await startWorld({ config: testConfig("protected: []\nallow_protected: true\n") });
    try {
      const plan =
        'version: 1\ntitle: A workflow\nitems:\n  - id: ci\n    writes: [.github/workflows/ci.yml]\n    prompt: |\n      create .github/workflows/ci.yml "on: push\\n"\n';
      const id = await own.plannedMission(`/naruto a workflow\n\n\`\`\`naruto\n${plan}\`\`\``);
      await own.integrate(id, { phase: "work", items: [{ item: "ci", attempt: 1 }] }, await own.workRun(id, "ci"));
      const mission = await own.mission(id);
      const [first, second] = mission.items[0]?.attempts ?? [];
      expect(first?.status).toBe("failed");
      expect(first?.reason).toMatch(
        /^the checkpoint could not be pushed: GitHub refused the push of refs\/heads\/naruto\/m-[0-9a-f]+--ci: .*refusing to allow a GitHub App to create or update workflow/,
      );
      // Tried again: dispatched, its job not started yet.
      expect(second?.status).toBe("dispatched");
      expect(await own.ref(`refs/heads/naruto/${id}`)).toBe(mission.base.commit);
    } finally {
      await own.close();
    }
  });
});
