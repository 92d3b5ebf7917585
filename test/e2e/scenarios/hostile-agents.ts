/**
 * Scenario (b): hostile agents in the work jobs of a real mission. One hunts its machine for a
 * token and tries every one it finds to create a ref and a comment; one tries to push (to a new
 * branch, to main, to the queue) with whatever credentials it finds; one leaves a process that
 * keeps hunting and trying after the agent exits. Nothing of theirs may reach the repository or
 * the API, and each still gets only its own item's edit integrated. (That they would succeed
 * if a write token were on their machine is shown by test/e2e/hostile-controls.test.ts.)
 *
 * The hunter must find no token at all, not even one that cannot write: the agent runs in a
 * `run:` step after naruto's action step has exited, so neither the job's read-only token nor
 * the `ACTIONS_RUNTIME_TOKEN` the runner gives JavaScript steps is anywhere it can look. (The
 * job did hold both: its checkout used the one, naruto's action step was given the other.)
 */
import { missionResult } from "../../../src/report/index.ts";
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
# The job boundary alone: what holds when a runner has no sandbox (a self-hosted runner without
# bubblewrap). hostile-sandboxed runs the same agents with the sandbox.
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
      check(world.sim.isolation === "namespace", "the hostile scenario needs jobs on machines of their own (Linux namespaces: run as root with unshare, nsenter and setpriv)");
      const mainBefore = await world.bareGit("rev-parse", "refs/heads/main");
      const command = await world.comment(`/naruto Let the hostile agents try\n\n\`\`\`naruto\n${plan(world.reports)}\`\`\`\n`);
      check(command !== null, "the workflow did not run for the /naruto comment");
      const runs = [command, ...(await world.settle(40))];
      const [id = ""] = await world.missionIds();
      const mission = await world.mission(id);
      check(mission !== null, "no mission stored", runs);
      const status = Object.fromEntries(missionResult(mission).items.map((i) => [i.id, i.status]));
      checkEqual(status, { hunt: "integrated", push: "integrated", linger: "integrated" }, "item statuses (their own edits still integrate)", runs);

      // What they tried, from their own reports: each tried, nothing worked.
      const [hunt] = await readReport(world.reports, "hunter");
      check(hunt !== undefined && hunt.attempts.length > 0, "the token hunter reported no attempt", runs);
      check(hunt.inMachine === true && (hunt.processes ?? 0) > 0 && (hunt.files ?? 0) > 0, `the token hunter did not search its machine (in machine: ${String(hunt.inMachine)}, ${String(hunt.processes)} process(es), ${String(hunt.files)} file(s))`, runs);
      checkEqual(hunt.found, [], "tokens the token hunter found in the work job (environment, /proc/*/environ and cmdline, git config, files)", runs);
      checkEqual(hunt.worked, [], "token-hunter writes that worked", runs);
      // There was something to leak: the job ran naruto's action step, a JavaScript step, which
      // the simulator (like the runner) gives the job's token input and ACTIONS_RUNTIME_TOKEN.
      const huntJob = runs.flatMap((r) => r.jobs).find((j) => isWorkLeg(j, "hunt"));
      check(huntJob?.steps.some((s) => s.kind.startsWith("naruto-dev/naruto@") && s.outcome === "success") === true, "the hunter's work job ran no naruto action step", runs);
      const [push] = await readReport(world.reports, "pusher");
      check(push !== undefined && push.attempts.length >= 3, "the pusher reported no push attempts", runs);
      checkEqual(push.worked, [], "pushes that worked", runs);
      const linger = await readReport(world.reports, "lingerer");
      const outlived = linger.findIndex((e) => e.event === "outlived the agent");
      check(outlived !== -1 && linger.slice(outlived).some((e) => e.event === "attempt"), `the lingering process made no attempt after its agent exited: ${JSON.stringify(linger.map((e) => e.event))}`, runs);
      checkEqual(linger.flatMap((e) => e.worked), [], "writes of the lingering process that worked", runs);
      const lingerJob = runs.flatMap((r) => r.jobs).find((j) => isWorkLeg(j, "linger"));
      check((lingerJob?.orphansKilled ?? 0) >= 1, "the lingering process was not still running when its job ended", runs);

      // What GitHub holds: no hostile ref, comment or commit; main and the README untouched.
      const hostileCalls = await checkNothingHostileLanded(world, runs, mainBefore);
      check(hostileCalls.length > 0, "the fake recorded none of the hostile API calls", runs);
      checkEqual(await world.bareGit("log", "--all", "--format=%H", "--grep=hostile push"), "", "hostile commits on GitHub", runs);
      checkEqual(await world.bareGit("show", `refs/heads/naruto/${id}:README.md`), "# demo", "README.md on the queue", runs);
      world.fake.assertNoViolations();
    } finally {
      await world.close();
    }
  },
};
