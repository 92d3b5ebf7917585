/**
 * Scenario (c): work artifacts tampered with between the work job and the queue and publish jobs
 * (what an agent that owns the work job's machine could upload): a path outside the item's
 * writes, a parent that is not on the queue, wrong trailers. Both jobs refuse each with the
 * reason and nothing of it is pushed; the retry, untampered, integrates.
 */
import { TEST_AGENT_READ } from "../../support/agents/index.ts";
import { shellQuote } from "../../../src/agent/shell-quote.ts";
import { missionResult } from "../../../src/report/index.ts";
import { join } from "node:path";
import { isUploadStep, tamperWorkArtifact, type Tamper } from "../support/tamper.ts";
import { REPO, REPO_ROOT, startWorld } from "../support/world.ts";
import { check, checkEqual, type Scenario } from "./scenario.ts";

const demoAgent = `${shellQuote(process.execPath)} ${shellQuote(`${REPO_ROOT}src/agent/demo-agent.mjs`)}`;
const CONFIG = `version: 1
agents:
  default: { command: ${JSON.stringify(demoAgent)}, read: ${TEST_AGENT_READ} }
limits: { max_parallel: 4, max_attempts: 2, item_timeout: 5m }
`;

const TAMPERED: Readonly<Record<string, { kind: Tamper; reason: string; status: string }>> = {
  outside: { kind: "outside-writes", reason: "evil.js", status: "out_of_scope" },
  offqueue: { kind: "parent-off-queue", reason: "is not a commit of the queue", status: "failed" },
  trailers: { kind: "wrong-trailers", reason: "Naruto-Item", status: "failed" },
};

const item = (id: string) => `  - id: ${id}
    title: ${id}
    writes: [src/${id}.js]
    prompt: |
      create src/${id}.js "export const ${id} = true;\\n"
`;
const PLAN = `version: 1\ntitle: Tampered bundles\nitems:\n${["clean", ...Object.keys(TAMPERED)].map(item).join("")}`;

export const tamperedBundle: Scenario = {
  name: "tampered-bundle",
  run: async () => {
    const forged = new Map<string, string>();
    const world = await startWorld({
      config: CONFIG,
      // The work job's own machine rewrites its artifact folder before the upload step sends it.
      stepHook: async ({ job, matrix, step, phase, runnerTemp }) => {
        if (job !== "work" || phase !== "before" || !isUploadStep(step) || matrix?.["attempt"] !== 1) return;
        const id = String(matrix["item"]);
        const spec = TAMPERED[id];
        if (spec !== undefined)
          forged.set(id, await tamperWorkArtifact({ folder: join(runnerTemp, "naruto-artifact"), bareRepo: world.fake.repo(REPO).dir, kind: spec.kind }));
      },
    });
    try {
      const command = await world.comment(`/naruto Tamper with the bundles\n\n\`\`\`naruto\n${PLAN}\`\`\`\n`);
      check(command !== null, "the workflow did not run for the /naruto comment");
      const runs = [command, ...(await world.settle(40))];
      checkEqual([...forged.keys()].sort(), Object.keys(TAMPERED).sort(), "artifacts tampered with", runs);
      const [id = ""] = await world.missionIds();
      const mission = await world.mission(id);
      check(mission !== null, "no mission stored", runs);
      const status = Object.fromEntries(missionResult(mission).items.map((i) => [i.id, i.status]));
      checkEqual(
        status,
        { clean: "integrated", outside: "integrated", offqueue: "integrated", trailers: "integrated" },
        "item statuses (the untampered retry integrates)",
        runs,
      );
      for (const [itemId, spec] of Object.entries(TAMPERED)) {
        const attempts = mission.items.find((i) => i.id === itemId)?.attempts ?? [];
        checkEqual(
          attempts.map((a) => a.status),
          [spec.status, "integrated"],
          `attempts of ${itemId}`,
          runs,
        );
        const reason = attempts[0]?.reason ?? "";
        check(reason.includes(spec.reason), `${itemId}: the refusal names why (${spec.reason}): ${reason}`, runs);
        const commit = forged.get(itemId) ?? "";
        const onGitHub = await world.bareGit("cat-file", "-e", `${commit}^{commit}`).then(
          () => true,
          () => false,
        );
        check(!onGitHub, `the forged commit of ${itemId} (${commit.slice(0, 12)}) reached GitHub`, runs);
      }
      const everything = await world.bareGit("log", "--all", "--format=%H", "--", "evil.js", "unrelated.txt");
      checkEqual(everything, "", "commits on GitHub touching the forged files", runs);
      world.fake.assertNoViolations();
    } finally {
      await world.close();
    }
  },
};
