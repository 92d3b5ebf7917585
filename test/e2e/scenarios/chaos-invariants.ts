/**
 * The fault campaign's checks can fail (issue 18): a calm mission of the campaign passes them;
 * the same mission with GitHub's state then broken the ways the campaign looks for — an item's
 * change on the queue twice, a second tracking comment, a stray ref, an attempt dispatched a
 * second time — fails each one, by name.
 */
import { trackingMarker } from "../../../src/report/index.ts";
import { runSeed } from "../chaos/campaign.ts";
import { NO_FAULTS } from "../../support/chaos/injector.ts";
import { MAINTAINER, REPO, type AppWorld } from "../support/app-world.ts";
import { check, checkEqual, type Scenario } from "./scenario.ts";

async function breakState(world: AppWorld, id: string): Promise<void> {
  const queue = `refs/heads/naruto/${id}`;
  const head = await world.bareGit("rev-parse", queue);
  // f0's change again, as a second commit on the queue.
  const tree = await world.rest<{ sha: string }>(MAINTAINER, "POST", `/repos/${REPO}/git/trees`, {
    base_tree: await world.bareGit("rev-parse", `${head}^{tree}`),
    tree: [{ path: "src/f0.txt", mode: "100644", type: "blob", content: "file 0 again\n" }],
  });
  const commit = await world.rest<{ sha: string }>(MAINTAINER, "POST", `/repos/${REPO}/git/commits`, {
    message: `f0 again\n\nNaruto-Mission: ${id}\nNaruto-Item: f0\n`,
    tree: tree.sha,
    parents: [head],
  });
  await world.bareGit("update-ref", queue, commit.sha, head);
  await world.rest(world.botLogin, "POST", `/repos/${REPO}/issues/1/comments`, { body: `${trackingMarker(id)}\na second tracking comment` });
  await world.bareGit("update-ref", `refs/heads/naruto/${id}--leftover`, head);
  const first = world.fake.dispatches.find((d) => d.inputs["mission"] === id && d.inputs["phase"] === "work");
  check(first !== undefined, "the mission had no work run");
  await world.rest(MAINTAINER, "POST", `/repos/${REPO}/actions/workflows/naruto.yml/dispatches`, { ref: "main", inputs: first.inputs });
}

export const chaosInvariants: Scenario = {
  name: "chaos-invariants",
  run: async () => {
    const calm = await runSeed({ seed: 1, items: 3, rates: NO_FAULTS, killRate: 0, commandKillRate: 0 });
    checkEqual(calm.failures, [], "what a calm mission of the campaign breaks");
    const broken = await runSeed({ seed: 1, items: 3, rates: NO_FAULTS, killRate: 0, commandKillRate: 0, beforeChecks: breakState });
    const expected = [
      /^the queue branch on GitHub is at [0-9a-f]{12}, the mission says [0-9a-f]{12}$/,
      /^commit [0-9a-f]{12} of item f0 changes \["M\\tsrc\/f0.txt"\], not only "A\\tsrc\/f0.txt"$/,
      /^item f0 is integrated with 2 commits on the queue$/,
      /^2 tracking comments /,
      /^the verdict comment does not name the queue head on GitHub/,
      /^attempt f0#1 was dispatched twice \(runs \d+ and \d+\)$/,
      /^refs outside the documented ones: refs\/heads\/naruto\/m-[a-z0-9-]+--leftover$/,
    ];
    for (const want of expected)
      check(
        broken.failures.some((f) => want.test(f)),
        `no failure matches ${want}; the failures: ${JSON.stringify(broken.failures, null, 2)}`,
      );
  },
};
