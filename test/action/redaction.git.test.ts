/**
 * Issue 13, point 7, through the Action's jobs against the fake GitHub: the work job's agent
 * prints its own keys (`ANTHROPIC_API_KEY`, and `ACME_SETTING` whose name says nothing),
 * credentials it was never given (both `ghs_` forms, `github_pat_`, `sk-…`, AWS keys) and a
 * value split across two chunks, quotes them in its result file, and exits 1. Nothing of them
 * may reach GitHub — the tracking comment, the verdict comment, the queue pull request, check
 * runs, the mission document on `naruto-state/<mission>` (readable by everyone who can read the
 * repository) — nor a job's log, summary or artifact.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commandMode } from "../../src/action/modes/command.ts";
import { preparePlan } from "../../src/action/modes/plan.ts";
import { prepareReview } from "../../src/action/modes/review.ts";
import { prepareWork } from "../../src/action/modes/work.ts";
import type { DispatchInput } from "../../src/action/deps.ts";
import { fakeAgentCommand, TEST_AGENT_READ } from "../support/agents/index.ts";
import { testGit } from "../support/git-repo.ts";
import { LEAKY_ENV, leaksIn } from "../support/leaks.ts";
import { BOT, newFolder, REPO, startWorld, type Job, type World } from "./world.ts";
import { readMissionRecords } from "../../src/store/git-store.ts";

const CONFIG = `agents:
  default:
    command: ${JSON.stringify(fakeAgentCommand("leaky"))}
    read: ${TEST_AGENT_READ}
    env: [ANTHROPIC_API_KEY, ACME_SETTING]
limits:
  max_attempts: 1
  item_timeout: 10m
`;

const PLAN = "version: 1\ntitle: One leaky item\nitems:\n  - id: leak\n    writes: [src/leak.ts]\n";

let world: World;
beforeAll(async () => {
  world = await startWorld({ config: CONFIG });
});
afterAll(async () => world.close());

/** Every file of a folder, as `path → text`. */
async function filesUnder(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) out[join(entry.parentPath, entry.name)] = await readFile(join(entry.parentPath, entry.name), "utf8");
  }
  return out;
}

describe("an agent that prints secrets in its work job", () => {
  it("leaves none of them on GitHub, in the mission document, or in any job's log, summary or artifact", async () => {
    const jobs: Job[] = [];
    const artifacts: string[] = [];
    const integrate = async (mission: string, dispatch: DispatchInput, folder: string) => {
      const { queue, publish } = await world.integrate(mission, dispatch, folder);
      jobs.push(queue, publish);
      artifacts.push(folder);
    };
    const agentJob = async (prepare: (job: Job) => Promise<void>, mission: string, name: string, env: Readonly<Record<string, string>> = {}) => {
      const job = await world.job("agent", { checkout: `naruto/${mission}`, env });
      jobs.push(job);
      await prepare(job);
      await world.agentStep(job);
      const folder = await newFolder("naruto-artifacts-");
      await world.upload(job, folder, name);
      return folder;
    };

    const event = await world.comment("octo-maintainer", `/naruto leak\n\n\`\`\`naruto\n${PLAN}\`\`\``);
    const command = await world.job("command");
    jobs.push(command);
    const started = await commandMode(command.deps, { event, selfLogins: [BOT], pullRequestHead: async () => null });
    if (started.kind !== "mission") throw new Error(`no mission: ${JSON.stringify(started)}`);
    const id = started.mission;
    await integrate(id, { phase: "plan", items: [] }, await agentJob((j) => preparePlan(j.deps, { mission: id }), id, "naruto-plan"));
    // The work leg runs in the run the state names, and its artifact goes to GitHub from its upload step.
    const leg = await world.job("agent", { checkout: `naruto/${id}`, env: LEAKY_ENV, run: await world.runOf(id, "leak") });
    jobs.push(leg);
    await prepareWork(leg.deps, { mission: id, items: "leak#1" });
    await world.agentStep(leg);
    const sent = leg.log.outputs["artifact"] ?? "";
    artifacts.push(sent);
    await world.uploadLeg(id, "leak", 1, sent);
    await integrate(id, { phase: "work", items: [{ item: "leak", attempt: 1 }] }, await newFolder("naruto-artifacts-"));
    expect((await world.mission(id)).status).toBe("reviewing");
    await integrate(id, { phase: "review", items: [] }, await agentJob((j) => prepareReview(j.deps, { mission: id }), id, "naruto-review"));

    const mission = await world.mission(id);
    expect(mission.status).toBe("done");
    expect(mission.items[0]).toMatchObject({ status: "failed" });
    const repo = world.fake.repo(REPO);
    const comments = [...repo.comments.values()];
    const tracking = comments.find((c) => c.body.startsWith(`<!-- naruto:tracking:${id} -->`))?.body ?? "";
    const verdict = comments.find((c) => c.body.startsWith(`<!-- naruto:verdict:${id} -->`))?.body ?? "";
    // Every record of the stored version (src/mission/records.ts).
    const stateDoc = [...(await readMissionRecords(testGit(), repo.dir, `refs/heads/naruto-state/${id}`)).values()].join("\n");
    const places: Record<string, string> = {
      comments: JSON.stringify(comments),
      issues: JSON.stringify([...repo.issues.values()]),
      "pull requests": JSON.stringify([...repo.pulls.values()]),
      "check runs": JSON.stringify([...repo.checkRuns.values()]),
      "the mission document": stateDoc,
      ...Object.fromEntries(
        jobs.flatMap((j, i) => [
          [`job ${i} log`, j.log.lines.join("\n")],
          [`job ${i} summary`, j.log.summaries.join("\n")],
        ]),
      ),
      ...Object.assign({}, ...(await Promise.all(artifacts.map(filesUnder)))),
    };
    const leaks = Object.entries(places).flatMap(([where, text]) => leaksIn(text).map((secret) => `${secret} in ${where}`));
    expect(leaks).toEqual([]);

    // What happened is still told: the reason with the secrets taken out, in the comments too.
    expect(tracking).toContain("failed: exited with code 1 \\[redacted\\] \\[redacted\\]");
    expect(verdict).toContain("\\[redacted\\]");
    expect(mission.items[0]?.reason).toContain("leaky: my key is [redacted] and my setting is [redacted]");
    expect(mission.items[0]?.reason).toContain("leaky: split [redacted] and [redacted] done");
  }, 240_000);
});
