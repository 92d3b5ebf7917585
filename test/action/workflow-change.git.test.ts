/**
 * The default branch changes a workflow file during a mission (issue 33), in the Action's jobs
 * with the job's `GITHUB_TOKEN`, which can never have the `workflows` permission. GitHub then
 * refuses every new worker branch built on the mission's base (the fake's rule,
 * test/support/fake-github/workflow-rule.ts). Before the fix the publish job failed on the queue
 * branch it only makes sure of, and the refused item stayed running; now the item fails without
 * a retry, the mission stops, one reply says what happened and how to go on, and a re-run of the
 * job changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gitText } from "../../src/git/run-git.ts";
import { workflowStopMarker } from "../../src/action/integrate/workflow-stop.ts";
import { testGit } from "../support/git-repo.ts";
import { newFolder, REPO, startWorld, testConfig, type World } from "./world.ts";

const WORKFLOW = ".github/workflows/lint.yml";
const git = testGit();
let world: World;
beforeAll(async () => {
  world = await startWorld({ config: testConfig() });
});
afterAll(async () => world.close());

const plan = ["version: 1", "title: Files", "items:"]
  .concat(
    ["alpha", "beta", "gamma"].flatMap((id) => [
      `  - id: ${id}`,
      `    writes: [src/${id}.ts]`,
      "    prompt: |",
      `      create src/${id}.ts "export const ${id} = 1;\\n"`,
    ]),
  )
  .join("\n");

/** A maintainer's push to main adding a workflow file (a person may: the rule binds tokens without the permission). */
async function addWorkflowOnMain(content = "on: workflow_dispatch\n"): Promise<string> {
  const dir = world.fake.repo(REPO).dir;
  const main = await gitText(git, { args: ["rev-parse", "refs/heads/main"], cwd: dir });
  const blob = await gitText(git, { args: ["hash-object", "-w", "--stdin"], cwd: dir, input: content });
  const index = { GIT_INDEX_FILE: `${dir}/lint.index` };
  await gitText(git, { args: ["read-tree", main], cwd: dir, env: index });
  await gitText(git, { args: ["update-index", "--add", "--cacheinfo", `100644,${blob},${WORKFLOW}`], cwd: dir, env: index });
  const tree = await gitText(git, { args: ["write-tree"], cwd: dir, env: index });
  const commit = await gitText(git, {
    args: ["commit-tree", tree, "-p", main, "-m", "Lint in CI"],
    cwd: dir,
    env: { GIT_AUTHOR_NAME: "m", GIT_AUTHOR_EMAIL: "m@x", GIT_COMMITTER_NAME: "m", GIT_COMMITTER_EMAIL: "m@x" },
  });
  await gitText(git, { args: ["update-ref", "refs/heads/main", commit, main], cwd: dir });
  return commit;
}

const replies = () => [...world.fake.repo(REPO).comments.values()].filter((c) => c.body.includes(workflowStopMarker(id)));
let id = "";
let beta = "";

describe("a workflow change on the default branch mid-mission", () => {
  it("fails the refused attempt for good, stops the mission and replies once", { timeout: 180_000 }, async () => {
    id = await world.plannedMission(`/naruto files\n\n\`\`\`naruto\n${plan}\n\`\`\``);
    // alpha's worker branch is made before main changes; beta's and gamma's would be after.
    await world.integrate(id, { phase: "work", items: [{ item: "alpha", attempt: 1 }] }, await world.workRun(id, "alpha"));
    await addWorkflowOnMain();
    const dispatches = world.fake.dispatches.length;
    beta = await world.workRun(id, "beta");
    await world.integrate(id, { phase: "work", items: [{ item: "beta", attempt: 1 }] }, beta);

    const mission = await world.mission(id);
    expect(mission.items.map((i) => [i.id, i.status, i.attempts.length])).toEqual([
      ["alpha", "integrated", 1],
      ["beta", "failed", 1],
      ["gamma", "cancelled", 1],
    ]);
    expect(mission.items[1]?.reason).toContain(
      `GitHub refused to create the branch naruto/${id}--beta: the default branch's workflow file ${WORKFLOW} changed`,
    );
    expect(mission.status).toBe("reviewing");
    expect(mission.reason).toMatch(/^stopped: GitHub refuses every new branch of this mission/);
    // No retry of beta: the review is all that is asked for.
    expect(world.fake.dispatches.slice(dispatches).map((d) => d.inputs["phase"])).toEqual(["review"]);
    expect(await world.ref(`refs/heads/naruto/${id}--beta`)).toBeNull();
    expect(replies().map((c) => c.issueNumber)).toEqual([1]);
    const reply = replies()[0]?.body ?? "";
    expect(reply).toContain(`\`${WORKFLOW}\``);
    expect(reply).toContain("1 of 3 items");
    expect(reply).toContain("`/naruto refresh` cannot help");
  });

  it("changes nothing when the same publish job runs again", { timeout: 120_000 }, async () => {
    const before = await world.mission(id);
    const comments = replies().map((c) => [c.id, c.body]);
    const dispatches = world.fake.dispatches.length;
    await world.integrate(id, { phase: "work", items: [{ item: "beta", attempt: 1 }] }, beta);
    expect((await world.mission(id)).seq).toBe(before.seq);
    expect(replies().map((c) => [c.id, c.body])).toEqual(comments);
    expect(world.fake.dispatches.length).toBe(dispatches);
  });

  it("answers a refresh onto the changed main once, and moves nothing", { timeout: 180_000 }, async () => {
    const plan1 = [
      "version: 1",
      "title: One",
      "items:",
      "  - id: one",
      "    writes: [src/one.ts]",
      "    prompt: |",
      '      create src/one.ts "export const one = 1;\\n"',
    ].join("\n");
    const other = await world.plannedMission(`/naruto one\n\n\`\`\`naruto\n${plan1}\n\`\`\``);
    await world.integrate(other, { phase: "work", items: [{ item: "one", attempt: 1 }] }, await world.workRun(other, "one"));
    const before = await world.mission(other);
    expect(before.items[0]?.status).toBe("integrated");
    await addWorkflowOnMain("on: pull_request\n");
    await world.integrate(other, { phase: "refresh", items: [] }, await newFolder("naruto-artifacts-"));
    const after = await world.mission(other);
    expect(after.base).toEqual(before.base);
    expect(await world.ref(`refs/heads/naruto/${other}`)).toBe(before.queue.head);
    const said = [...world.fake.repo(REPO).comments.values()].filter((c) =>
      c.body.includes(`mission \`${other}\` · refresh: GitHub refused to move naruto/${other} onto main`),
    );
    expect(said).toHaveLength(1);
    expect(said[0]?.body).toContain(`changed its workflow file ${WORKFLOW}`);
  });
});
