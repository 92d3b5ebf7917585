/**
 * Scenario (b): hostile agents in the work jobs of a real mission, with `sandbox: none` in the
 * config — what a runner without a sandbox would run. One hunts its machine for a token and
 * tries every one it finds, one tries to push with whatever credentials it finds, one leaves a
 * process that keeps trying after the agent exits. On a runner naruto runs agents only in the
 * sandbox (issue 32): beside naruto's step an agent could write the runner's file commands and
 * leave a process for the upload step's token. So each work leg refuses to run its agent and
 * says why; none of them runs, nothing lands, and no process outlives its job. (That the job
 * boundary alone held against them is what this scenario showed before; hostile-sandboxed runs
 * the same agents in the sandbox, and test/e2e/hostile-controls.test.ts shows they would succeed
 * with a write token in reach.)
 */
import { fakeAgentCommand, TEST_AGENT_READ } from "../../support/agents/index.ts";
import { checkNothingHostileLanded, isWorkLeg, readReport } from "../support/hostile-report.ts";
import { startWorld } from "../support/world.ts";
import { check, checkEqual, type Scenario } from "./scenario.ts";

const agent = (name: "token-hunter" | "pusher" | "lingerer") => JSON.stringify(fakeAgentCommand(`hostile-${name}`));

const CONFIG = `version: 1
agents:
  default: { command: ${agent("token-hunter")}, read: ${TEST_AGENT_READ} }
  hunter: { command: ${agent("token-hunter")}, read: ${TEST_AGENT_READ} }
  pusher: { command: ${agent("pusher")}, read: ${TEST_AGENT_READ} }
  lingerer: { command: ${agent("lingerer")}, read: ${TEST_AGENT_READ} }
limits: { max_parallel: 3, max_attempts: 1, item_timeout: 5m }
# What a runner without a sandbox would run: refused on a runner.
sandbox: none
`;

function plan(reports: string): string {
  const item = (id: string, agentName: string, verify = "") => `  - id: ${id}
    title: ${id}
    agent: ${agentName}
    writes: [notes/${id}.txt]
    prompt: |
      hostile-report-dir: ${reports}
${verify}`;
  // The lingering process must get its chance while the job still runs: after its agent exits,
  // the job holds on (in the item's verify, at most 15 s) until it has ended its first round of
  // attempts. Without this, whether it tries before the job ends is a race the machine's load
  // decides; waiting only for its first attempt left the rest of the round (commits in the
  // checkout) racing the checkpoint, which then, rightly, ended tampered.
  const waitForLingerer = `    verify: |
      for i in $(seq 1 150); do grep -q '"event":"round"' ${reports}/lingerer.jsonl 2>/dev/null && exit 0; sleep 0.1; done; exit 0
`;
  return `version: 1\ntitle: Hostile agents\nitems:\n${item("hunt", "hunter")}${item("push", "pusher")}${item("linger", "lingerer", waitForLingerer)}`;
}

export const hostileAgents: Scenario = {
  name: "hostile-agents",
  run: async () => {
    const world = await startWorld({ config: CONFIG });
    try {
      check(
        world.sim.isolation === "namespace",
        "the hostile scenario needs jobs on machines of their own (Linux namespaces: run as root with unshare, nsenter and setpriv)",
      );
      const mainBefore = await world.bareGit("rev-parse", "refs/heads/main");
      const command = await world.comment(`/naruto Let the hostile agents try\n\n\`\`\`naruto\n${plan(world.reports)}\`\`\`\n`);
      check(command !== null, "the workflow did not run for the /naruto comment");
      const runs = [command, ...(await world.settle(40))];
      const [id = ""] = await world.missionIds();
      const mission = await world.mission(id);
      check(mission !== null, "no mission stored", runs);
      for (const item of mission.items) {
        checkEqual(item.status, "failed", `${item.id}'s status`, runs);
        check(
          /only in the sandbox, and the config says sandbox: none/.test(item.reason ?? ""),
          `${item.id}'s reason says why its agent did not run: ${item.reason ?? ""}`,
          runs,
        );
      }
      // None of them ran: no report, no process left in any leg.
      for (const agentName of ["hunter", "pusher", "lingerer"] as const)
        checkEqual(await readReport(world.reports, agentName), [], `what the ${agentName} reported`, runs);
      for (const item of ["hunt", "push", "linger"]) {
        const leg = runs.flatMap((r) => r.jobs).find((j) => isWorkLeg(j, item));
        check(leg !== undefined, `no work leg for ${item}`, runs);
        checkEqual(leg.orphansKilled, 0, `processes left when ${item}'s leg ended`, runs);
      }
      const hostileCalls = await checkNothingHostileLanded(world, runs, mainBefore);
      checkEqual(hostileCalls.length, 0, "hostile API calls", runs);
      checkEqual(await world.bareGit("show", `refs/heads/naruto/${id}:README.md`), "# demo", "README.md on the queue", runs);
      world.fake.assertNoViolations();
    } finally {
      await world.close();
    }
  },
};
