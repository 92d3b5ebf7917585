/**
 * Scenario (c'): the queue job's artifact tampered with between the queue job and the publish job
 * (what the repository's code, run by the queue's verify, could upload from that job's machine):
 * one more commit on top, the last commit with another tree, the last commit with another
 * message. Publish rebuilds the queue from the checkpoints it checked itself, so each is refused
 * with the reason; the queue branch does not move and no forged commit reaches GitHub; the retry,
 * untampered, integrates.
 */
import { TEST_AGENT_READ } from "../../support/agents/index.ts";
import { shellQuote } from "../../../src/agent/shell-quote.ts";
import { missionResult } from "../../../src/report/index.ts";
import { join } from "node:path";
import { isUploadStep, tamperQueueArtifact, type QueueTamper } from "../support/tamper.ts";
import { REPO_ROOT, startWorld } from "../support/world.ts";
import { check, checkEqual, type Scenario } from "./scenario.ts";

const demoAgent = `${shellQuote(process.execPath)} ${shellQuote(`${REPO_ROOT}src/agent/demo-agent.mjs`)}`;
const CONFIG = `version: 1
agents:
  default: { command: ${JSON.stringify(demoAgent)}, read: ${TEST_AGENT_READ} }
limits: { max_parallel: 4, max_attempts: 2, item_timeout: 5m }
queue:
  verify: "test ! -e BROKEN"
`;

const TAMPERED: Readonly<Record<string, QueueTamper>> = { extra: "extra-commit", tree: "changed-tree", message: "message-only" };

// One after the other: each run's queue job builds on the queue the previous run published.
const ids = Object.keys(TAMPERED);
const item = (id: string, i: number) => `  - id: ${id}
    title: ${id}
    writes: [src/${id}.js]
${i === 0 ? "" : `    after: [${ids[i - 1]}]\n`}    prompt: |
      create src/${id}.js "export const ${id} = true;\\n"
`;
const PLAN = `version: 1\ntitle: Tampered queue results\nitems:\n${ids.map(item).join("")}`;

export const tamperedQueue: Scenario = {
  name: "tampered-queue",
  run: async () => {
    const forged = new Map<string, string>();
    const world = await startWorld({
      config: CONFIG,
      // The queue job's machine rewrites its result folder before the upload step sends it.
      stepHook: async ({ job, trigger, step, phase, runnerTemp }) => {
        if (job !== "queue" || phase !== "before" || !isUploadStep(step) || trigger.inputs["phase"] !== "work") return;
        const [entry] = JSON.parse(String(trigger.inputs["items"] ?? "[]")) as { item: string; attempt: number }[];
        const kind = entry?.attempt === 1 ? TAMPERED[entry.item] : undefined;
        if (kind === undefined || entry === undefined) return;
        const commit = await tamperQueueArtifact({ folder: join(runnerTemp, "naruto-artifact"), bareRepo: world.fake.repo("acme/demo").dir, kind });
        if (commit !== null) forged.set(entry.item, commit);
      },
    });
    try {
      const command = await world.comment(`/naruto Tamper with the queue\n\n\`\`\`naruto\n${PLAN}\`\`\`\n`);
      check(command !== null, "the workflow did not run for the /naruto comment");
      const runs = [command, ...(await world.settle(40))];
      checkEqual([...forged.keys()].sort(), [...ids].sort(), "queue results tampered with", runs);
      const [id = ""] = await world.missionIds();
      const mission = await world.mission(id);
      check(mission !== null, "no mission stored", runs);
      const status = Object.fromEntries(missionResult(mission).items.map((i) => [i.id, i.status]));
      checkEqual(status, Object.fromEntries(ids.map((i) => [i, "integrated"])), "item statuses (the untampered retry integrates)", runs);
      for (const itemId of ids) {
        const attempts = mission.items.find((i) => i.id === itemId)?.attempts ?? [];
        checkEqual(
          attempts.map((a) => a.status),
          ["verify_failed", "integrated"],
          `attempts of ${itemId}`,
          runs,
        );
        const reason = attempts[0]?.reason ?? "";
        check(/the queue job's result was refused: .*nothing of it was pushed/.test(reason), `${itemId}: the refusal says why: ${reason}`, runs);
        const commit = forged.get(itemId) ?? "";
        const onGitHub = await world.bareGit("cat-file", "-e", `${commit}^{commit}`).then(
          () => true,
          () => false,
        );
        check(!onGitHub, `the forged commit of ${itemId} (${commit.slice(0, 12)}) reached GitHub`, runs);
      }
      const publishLogs = runs.flatMap((r) => r.jobs.filter((j) => j.job === "publish").flatMap((j) => j.steps.map((s) => s.log))).join("\n");
      check(publishLogs.includes("the queue job's result was refused"), "no publish job said why it refused", runs);
      checkEqual(await world.bareGit("log", "--all", "--format=%H", "--", "evil.sh"), "", "commits on GitHub touching the forged file", runs);
      checkEqual(await world.bareGit("log", "--all", "--format=%H", "--grep=Approved-By: everyone"), "", "commits on GitHub with the forged message", runs);
      world.fake.assertNoViolations();
    } finally {
      await world.close();
    }
  },
};
