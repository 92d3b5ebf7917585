/**
 * Issue 32: artifacts are data. A process of each of three work legs (holding its job's
 * `ACTIONS_RUNTIME_TOKEN`, during the leg's upload step) replaces the leg's artifact with a zip
 * upload-artifact never makes: one with an entry `../escaped.txt`, one whose `result.json` is a
 * symbolic link to `/etc/passwd`, one whose `result.json` is larger than naruto reads. Each is
 * refused by name, in the log and the tracking comment, and its attempt fails (the retry, left
 * alone, integrates); a fourth leg of the same run is integrated as if nothing happened.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { shellQuote } from "../../../src/agent/shell-quote.ts";
import { missionResult, trackingMarker } from "../../../src/report/index.ts";
import { TEST_AGENT_READ } from "../../support/agents/index.ts";
import type { StepHookInfo } from "../../support/actions-sim/index.ts";
import { S_IFLNK, writeZip, type ZipInput } from "../../support/zip.ts";
import { uploadAs } from "../support/forgery.ts";
import { isUploadStep } from "../support/tamper.ts";
import { REPO, REPO_ROOT, startWorld } from "../support/world.ts";
import { check, checkEqual, type Scenario } from "./scenario.ts";

const demoAgent = `${shellQuote(process.execPath)} ${shellQuote(`${REPO_ROOT}src/agent/demo-agent.mjs`)}`;
const CONFIG = `version: 1
agents:
  default: { command: ${JSON.stringify(demoAgent)}, read: ${TEST_AGENT_READ} }
limits: { max_parallel: 4, max_attempts: 2, item_timeout: 5m }
`;

/** Per item: what its crafted zip holds besides the leg's own files, and what the refusal must say. */
const CRAFTED: Readonly<Record<string, { entries: (own: { result: Buffer; bundle: Buffer }) => ZipInput[]; says: RegExp }>> = {
  dots: {
    entries: (own) => [
      { name: "result.json", data: own.result },
      { name: "checkpoint.bundle", data: own.bundle },
      { name: "../escaped.txt", data: "written outside the artifact's folder\n" },
    ],
    says: /\.\.\/escaped\.txt/,
  },
  link: {
    entries: (own) => [
      { name: "result.json", data: "/etc/passwd", mode: S_IFLNK | 0o777 },
      { name: "checkpoint.bundle", data: own.bundle },
    ],
    says: /symbolic link/,
  },
  big: {
    // Still JSON, and the right result: only too large to be read.
    entries: (own) => [
      { name: "result.json", data: Buffer.concat([own.result, Buffer.alloc(5 * 1024 * 1024, 0x20)]) },
      { name: "checkpoint.bundle", data: own.bundle },
    ],
    says: /larger than/,
  },
};

const item = (id: string) => `  - id: ${id}
    title: ${id}
    writes: [src/${id}.js]
    prompt: |
      create src/${id}.js "export const ${id} = true;\\n"
`;
const PLAN = `version: 1\ntitle: Bad artifacts\nitems:\n${["clean", ...Object.keys(CRAFTED)].map(item).join("")}`;

async function replace(info: StepHookInfo, crafted: Set<string>): Promise<void> {
  if (info.job !== "work" || info.phase !== "after" || !isUploadStep(info.step) || info.matrix?.["attempt"] !== 1) return;
  const id = String(info.matrix["item"]);
  const spec = CRAFTED[id];
  if (spec === undefined) return;
  const folder = join(info.runnerTemp, "naruto-artifact");
  const own = { result: await readFile(join(folder, "result.json")), bundle: await readFile(join(folder, "checkpoint.bundle")) };
  const status = await uploadAs({
    resultsUrl: info.resultsUrl,
    runtimeToken: info.runtimeToken,
    name: `naruto-work-${id}-1`,
    zip: writeZip(spec.entries(own)),
    overwrite: true,
  });
  if (status === 201) crafted.add(id);
}

export const badArtifacts: Scenario = {
  name: "bad-artifacts",
  run: async () => {
    const crafted = new Set<string>();
    const world = await startWorld({ config: CONFIG, stepHook: (info) => replace(info, crafted) });
    try {
      const command = await world.comment(`/naruto Bad artifacts\n\n\`\`\`naruto\n${PLAN}\`\`\`\n`);
      check(command !== null, "the workflow did not run for the /naruto comment");
      const runs = [command, ...(await world.settle(30))];
      checkEqual([...crafted].sort(), Object.keys(CRAFTED).sort(), "artifacts replaced by crafted zips", runs);
      const [id = ""] = await world.missionIds();
      const mission = await world.mission(id);
      check(mission !== null, "no mission stored", runs);
      const status = Object.fromEntries(missionResult(mission).items.map((i) => [i.id, i.status]));
      checkEqual(
        status,
        { clean: "integrated", dots: "integrated", link: "integrated", big: "integrated" },
        "item statuses (the clean leg, and each retry)",
        runs,
      );
      const tracking = [...world.fake.repo(REPO).comments.values()].find((c) => c.body.startsWith(trackingMarker(id)))?.body ?? "";
      for (const [itemId, spec] of Object.entries(CRAFTED)) {
        const attempts = mission.items.find((i) => i.id === itemId)?.attempts ?? [];
        checkEqual(
          attempts.map((a) => a.status),
          ["failed", "integrated"],
          `attempts of ${itemId}`,
          runs,
        );
        const reason = attempts[0]?.reason ?? "";
        check(reason.includes(`naruto-work-${itemId}-1`) && spec.says.test(reason), `${itemId}: the refusal names the artifact and why: ${reason}`, runs);
        check(tracking.includes(`naruto-work-${itemId}-1`), `the tracking comment does not name naruto-work-${itemId}-1:\n${tracking}`, runs);
      }
      checkEqual(mission.items.find((i) => i.id === "clean")?.attempts.length, 1, "attempts of the clean item", runs);
      world.fake.assertNoViolations();
    } finally {
      await world.close();
    }
  },
};
