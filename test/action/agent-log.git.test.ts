/**
 * Issue 13, point 9: an agent's output in its job's log must not command the runner. The work
 * run of a mission goes through the Actions simulator (which reads workflow commands the way
 * actions/runner does: lines end at a lone `\r` too, `::` may follow spaces, `##[…]` counts
 * anywhere), with the Action built from the sources and the `leaky` agent, which prints
 * `::add-mask::`, `::error::`, `::set-output`, `::set-env`, `::stop-commands::` after a lone
 * `\r`, after `\r\n`, indented, and in the old `##[add-mask]` form. None may be acted on: no mask,
 * no annotation, no output, no failed step, and naruto's own commands after them still work.
 */
import { rm } from "node:fs/promises";
import { dirname } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createActionsSimulator, formatRun, type ActionsSimulator } from "../support/actions-sim/index.ts";
import { buildActionFromSources } from "../support/action-bundle.ts";
import { fakeAgentCommand, fakeAgentPath, TEST_AGENT_READ } from "../support/agents/index.ts";
import { LEAKY } from "../support/leaks.ts";
import { REPO, startWorld, type World } from "./world.ts";

const CONFIG = `agents:
  default:
    command: ${JSON.stringify(fakeAgentCommand("leaky"))}
    read: ${TEST_AGENT_READ}
    env: [ANTHROPIC_API_KEY]
limits:
  max_attempts: 1
  item_timeout: 10m
`;

const FAKE_AGENTS = dirname(fakeAgentPath("leaky"));

let world: World;
let actionDir: string;
let sim: ActionsSimulator;
beforeAll(async () => {
  [world, actionDir] = await Promise.all([startWorld({ config: CONFIG }), buildActionFromSources()]);
  sim = await createActionsSimulator({
    fake: world.fake,
    repo: REPO,
    actionDir,
    // The fake agents, for the job machines: where the checkout lies under the temp folder (as a
    // CI clone may), the machines' private temp folder would hide them.
    sharedDirs: [FAKE_AGENTS],
    secrets: { ANTHROPIC_API_KEY: LEAKY.anthropicEnv },
    runnerEnv: { NARUTO_GITHUB_WRITE_INTERVAL_MS: "0" },
  });
}, 120_000);
afterAll(async () => {
  await sim?.close();
  await world?.close();
  if (actionDir) await rm(actionDir, { recursive: true, force: true });
});

describe("an agent printing workflow commands in its work job", () => {
  it("commands nothing: no mask, annotation, output or failure comes of it", async () => {
    // The mission up to its work dispatch, in-process; the work run itself in the simulator.
    const id = await world.plannedMission("/naruto leak\n\n```naruto\nversion: 1\ntitle: Leak\nitems:\n  - id: leak\n    writes: [src/leak.ts]\n```\n");
    const dispatch = world.fake.dispatches.at(-1);
    expect(dispatch?.inputs["phase"]).toBe("work");
    if (dispatch === undefined) throw new Error("no work dispatch");

    const run = await sim.runDispatch(dispatch);
    const shown = formatRun(run, { withLogs: true });
    const job = run.jobs.find((j) => j.name.startsWith("work"));
    const step = job?.steps.find((s) => s.name === "naruto agent");
    if (step === undefined) throw new Error(`no agent step:\n${shown}`);

    // The agent ran and printed them all: the log shows each, quoted.
    expect(step.log, shown).toContain("  | ::add-mask::naruto-mask-probe");
    expect(step.log).toContain("  | see # #[add-mask]naruto-old-mask-probe");
    const probes = (text: string) => text.includes("probe");
    expect(
      step.commands.filter((c) => probes(c.name) || probes(c.data) || Object.values(c.properties).some(probes)),
      shown,
    ).toEqual([]);
    expect(step.annotations.filter((a) => probes(a.message))).toEqual([]);
    expect(Object.entries(step.outputs).filter(([k, v]) => probes(k) || probes(v))).toEqual([]);
    expect(step.conclusion, shown).toBe("success");
    // Nothing it printed stopped the runner reading naruto's own commands after it.
    expect(step.commands.map((c) => c.name)).toContain("endgroup");
    // Masks would turn the probes into *** in every log of the job.
    expect(job?.steps.map((s) => s.log).join("\n")).toContain("naruto-mask-probe");
    expect(job?.steps.map((s) => s.log).join("\n")).toContain("naruto-old-mask-probe");
    expect((await world.mission(id)).items[0]?.status).toBe("failed");
  }, 240_000);
});
