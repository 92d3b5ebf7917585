/**
 * Issue 32: a leg's work forged by another job. `fast` and `slow` start as one work run; `slow`
 * works until the integrate run that `fast`'s end starts has published. Meanwhile a process
 * holding some job's `ACTIONS_RUNTIME_TOKEN` uploads an artifact named `naruto-work-slow-1`: a
 * checkpoint inside `slow`'s writes, on the queue head, with the right trailers —
 *
 * - `forged-leg-queue`: by the integrate run's queue job (into its own run), which also adds
 *   `{slow, 1}` to the `entries` of its `queue.json` and puts the zip among what it hands on;
 * - `forged-leg-sibling`: by `fast`'s work leg, into the work run itself, before `slow` uploads.
 *
 * Publish must take a leg's work only from that leg: nothing of the forgery on the queue or the
 * worker branch, `slow`'s own work integrated once it ends, the forgery named in the log and
 * the tracking comment.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { missionResult, trackingMarker } from "../../../src/report/index.ts";
import { shellQuote } from "../../../src/agent/shell-quote.ts";
import { TEST_AGENT_READ } from "../../support/agents/index.ts";
import type { RunResult, StepHookInfo } from "../../support/actions-sim/index.ts";
import { forgedCheckpoint, uploadAs } from "../support/forgery.ts";
import { REPO, REPO_ROOT, startWorld, type World } from "../support/world.ts";
import { check, checkEqual, type Scenario } from "./scenario.ts";

const FORGED = "FORGED: written by a process that is not slow's leg\n";
const demoAgent = `${shellQuote(process.execPath)} ${shellQuote(`${REPO_ROOT}src/agent/demo-agent.mjs`)}`;

function config(reports: string): string {
  const release = shellQuote(`${reports}/release-slow`);
  const waiter = `for i in $(seq 1 1200); do [ -e ${release} ] && break; sleep 0.1; done; [ -e ${release} ] || { echo "never released" >&2; exit 3; }; mkdir -p src && echo slow > src/slow.txt`;
  const read = JSON.stringify([reports, ...(JSON.parse(TEST_AGENT_READ) as string[])]);
  return `version: 1
agents:
  default: { command: ${JSON.stringify(demoAgent)}, read: ${TEST_AGENT_READ} }
  waiter: { command: ${JSON.stringify(waiter)}, read: ${read}, timeout: 3m }
limits: { max_parallel: 4, max_attempts: 1, item_timeout: 5m }
`;
}

const PLAN = `version: 1
title: A leg forged
items:
  - id: fast
    title: Fast
    writes: [src/fast.js]
    prompt: |
      create src/fast.js "export const fast = 1;\\n"
  - id: slow
    title: Slow, until the integrate run for fast has published
    agent: waiter
    writes: [src/slow.txt]
    prompt: wait
`;

type Variant = "queue" | "sibling";

function forger(variant: Variant, world: () => World, forged: { commit: string | null; upload: number | null }) {
  return async (info: StepHookInfo): Promise<void> => {
    const mission = String(info.trigger.inputs["mission"] ?? "");
    const integrate = info.trigger.inputs["phase"] === "integrate";
    const attack =
      variant === "queue"
        ? info.job === "queue" && integrate && info.phase === "after" && info.step === "naruto queue"
        : info.job === "work" && info.matrix?.["item"] === "fast" && info.phase === "after" && info.step === "naruto agent";
    if (attack && forged.commit === null) {
      const { zip, commit } = await forgedCheckpoint({
        bareRepo: world().fake.repo(REPO).dir,
        mission,
        item: "slow",
        attempt: 1,
        path: "src/slow.txt",
        content: FORGED,
      });
      forged.commit = commit;
      forged.upload = await uploadAs({ resultsUrl: info.resultsUrl, runtimeToken: info.runtimeToken, name: "naruto-work-slow-1", zip });
      if (variant === "queue") {
        // The queue job's own hand-over: a line for slow in entries, and the zip among its files.
        const folder = join(info.runnerTemp, "naruto-artifact");
        const path = join(folder, "queue.json");
        const record = JSON.parse(await readFile(path, "utf8")) as { entries?: { item: string; attempt: number }[] };
        record.entries = [...(record.entries ?? []), { item: "slow", attempt: 1 }];
        await writeFile(path, `${JSON.stringify(record, null, 2)}\n`);
        await writeFile(join(folder, "naruto-work-slow-1.zip"), zip);
      }
    }
    // slow's agent ends once the integrate run that fast's end started has published.
    if (info.job === "publish" && integrate && info.phase === "after" && info.step.startsWith("Run naruto-dev/naruto@")) {
      await writeFile(join(world().reports, "release-slow"), "go\n");
    }
  };
}

function forgedLeg(variant: Variant): Scenario {
  return {
    name: `forged-leg-${variant}`,
    run: async () => {
      const forged: { commit: string | null; upload: number | null } = { commit: null, upload: null };
      let current: World | undefined;
      const world = await startWorld({ config: config, parallelRuns: 4, stepHook: forger(variant, () => current as World, forged) });
      current = world;
      try {
        const command = await world.comment(`/naruto Fast and slow\n\n\`\`\`naruto\n${PLAN}\`\`\`\n`);
        check(command !== null, "the workflow did not run for the /naruto comment");
        const runs: RunResult[] = [command, ...(await world.settle(30))];
        check(forged.commit !== null, "the forger never ran", runs);
        checkEqual(forged.upload, 201, "the forged upload (any process with the job's runtime token may upload)", runs);
        const [id = ""] = await world.missionIds();
        const mission = await world.mission(id);
        check(mission !== null, "no mission stored", runs);
        const slow = mission.items.find((i) => i.id === "slow");
        const onQueue = await world.bareGit("show", `refs/heads/naruto/${id}:src/slow.txt`).catch(() => "(none)");
        check(
          onQueue === "slow",
          `the queue's src/slow.txt is ${JSON.stringify(onQueue)}, not slow's own work (slow: ${slow?.status}, commit ${slow?.commit?.slice(0, 12)}, forged ${forged.commit?.slice(0, 12)})`,
          runs,
        );
        const reached = await world.bareGit("cat-file", "-e", `${forged.commit ?? ""}^{commit}`).then(
          () => true,
          () => false,
        );
        check(
          !reached,
          `the forged checkpoint ${forged.commit?.slice(0, 12)} reached GitHub (worker branch: ${await world.bareGit("rev-parse", `refs/heads/naruto/${id}--slow`).catch(() => "none")})`,
          runs,
        );
        const status = Object.fromEntries(missionResult(mission).items.map((i) => [i.id, i.status]));
        checkEqual(status, { fast: "integrated", slow: "integrated" }, "item statuses (slow's own work integrates when it ends)", runs);
        const publishLogs = runs.flatMap((r) => r.jobs.filter((j) => j.job === "publish").flatMap((j) => j.steps.map((s) => s.log))).join("\n");
        check(/(naruto-work-slow-1|slow#1)[^\n]*refused/i.test(publishLogs), "no publish job named the forgery in its log", runs);
        const tracking = [...world.fake.repo(REPO).comments.values()].find((c) => c.body.startsWith(trackingMarker(id)))?.body ?? "";
        check(/naruto-work-slow-1|slow#(&#8203;)?1/.test(tracking), `the tracking comment does not name the forgery:\n${tracking}`, runs);
        world.fake.assertNoViolations();
      } finally {
        await world.close();
      }
    },
  };
}

export const forgedLegQueue = forgedLeg("queue");
export const forgedLegSibling = forgedLeg("sibling");
