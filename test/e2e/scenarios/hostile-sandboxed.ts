/**
 * Scenario (b'): the hostile agents of hostile-agents.ts again, now with the sandbox the template
 * prepares (`sandbox: required`: bubblewrap in each job's machine). The hunter finds no process
 * but its own sandbox's, no token, and not even where GitHub is; the pusher gets nowhere; the lingerer dies with its
 * sandbox instead of waiting for a later step's token; and each item's own edit still integrates.
 * They report on stdout, into the agent step's log: the report folder is out of their reach.
 */
import { missionResult } from "../../../src/report/index.ts";
import { fakeAgentCommand, TEST_AGENT_READ } from "../../support/agents/index.ts";
import { bwrapSkipReason } from "../../support/sandbox.ts";
import { checkNothingHostileLanded, isWorkLeg, reportFromLog } from "../support/hostile-report.ts";
import { startWorld } from "../support/world.ts";
import { check, checkEqual, type Scenario } from "./scenario.ts";

const agent = (name: "token-hunter" | "pusher" | "lingerer") => JSON.stringify(fakeAgentCommand(`hostile-${name}`));

const CONFIG = `version: 1
agents:
  hunter: { command: ${agent("token-hunter")}, read: ${TEST_AGENT_READ} }
  pusher: { command: ${agent("pusher")}, read: ${TEST_AGENT_READ} }
  lingerer: { command: ${agent("lingerer")}, read: ${TEST_AGENT_READ} }
limits: { max_parallel: 3, max_attempts: 1, item_timeout: 5m }
sandbox: required
`;

const item = (id: string, agentName: string) => `  - id: ${id}
    title: ${id}
    agent: ${agentName}
    writes: [notes/${id}.txt]
    prompt: |
      hostile-report-log: yes
`;
const PLAN = `version: 1\ntitle: Hostile agents in the sandbox\nitems:\n${item("hunt", "hunter")}${item("push", "pusher")}${item("linger", "lingerer")}`;

export const hostileSandboxed: Scenario = {
  name: "hostile-sandboxed",
  run: async () => {
    if (bwrapSkipReason !== null) throw new Error(`skipped: ${bwrapSkipReason}`);
    const world = await startWorld({ config: CONFIG });
    try {
      const mainBefore = await world.bareGit("rev-parse", "refs/heads/main");
      const command = await world.comment(`/naruto Let the hostile agents try, sandboxed\n\n\`\`\`naruto\n${PLAN}\`\`\`\n`);
      check(command !== null, "the workflow did not run for the /naruto comment");
      const runs = [command, ...(await world.settle(40))];
      const [id = ""] = await world.missionIds();
      const mission = await world.mission(id);
      check(mission !== null, "no mission stored", runs);
      const status = Object.fromEntries(missionResult(mission).items.map((i) => [i.id, i.status]));
      checkEqual(status, { hunt: "integrated", push: "integrated", linger: "integrated" }, "item statuses (their own edits still integrate)", runs);

      const jobs = runs.flatMap((r) => r.jobs);
      const log = (item: string) => jobs.find((j) => isWorkLeg(j, item))?.steps.find((s) => s.name === "naruto agent")?.log ?? "";
      for (const item of ["hunt", "push", "linger"])
        check(log(item).includes("run in the sandbox: bwrap"), `the work job of ${item} ran its agent in bubblewrap`, runs);

      const [hunt] = reportFromLog(log("hunt"), "hunter");
      check(hunt !== undefined, `the token hunter reported nothing; its step's log:\n${log("hunt").slice(-3000)}`, runs);
      // Its /proc is its sandbox's: not the job's machine, and no process of naruto or the runner.
      check(hunt.inMachine === false, "the token hunter saw the job machine's process table", runs);
      checkEqual(hunt.found, [], "tokens the token hunter found", runs);
      checkEqual(hunt.worked, [], "token-hunter writes that worked", runs);
      const [push] = reportFromLog(log("push"), "pusher");
      check(push !== undefined, `the pusher reported nothing; its step's log:\n${log("push").slice(-3000)}`, runs);
      checkEqual(push.worked, [], "pushes that worked", runs);
      // The lingerer's process died with its sandbox: nothing of it was left for the job's end.
      const lingerJob = jobs.find((j) => isWorkLeg(j, "linger"));
      checkEqual(lingerJob?.orphansKilled ?? -1, 0, "processes the lingerer's job still had at its end", runs);

      await checkNothingHostileLanded(world, runs, mainBefore);
      world.fake.assertNoViolations();
    } finally {
      await world.close();
    }
  },
};
