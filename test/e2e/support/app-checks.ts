/**
 * What the App scenarios share: a config whose agent is the deterministic demo agent, small
 * plans, and checks of what a finished mission left on the fake GitHub.
 */
import { TEST_AGENT_READ } from "../../support/agents/index.ts";
import { shellQuote } from "../../../src/agent/shell-quote.ts";
import type { Mission } from "../../../src/mission/index.ts";
import { missionResult, trackingMarker, verdictMarker } from "../../../src/report/index.ts";
import { check, checkEqual } from "../scenarios/scenario.ts";
import { REPO, type AppWorld } from "./app-world.ts";
import { REPO_ROOT } from "./world.ts";

const demoAgent = `${shellQuote(process.execPath)} ${shellQuote(`${REPO_ROOT}src/agent/demo-agent.mjs`)}`;

/** The demo agent for every item and the review; one attempt, so a failure shows at once. */
export const APP_CONFIG = `version: 1
agents:
  default:
    command: ${JSON.stringify(demoAgent)}
    read: ${TEST_AGENT_READ}
    timeout: 2m
limits:
  max_parallel: 4
  max_attempts: 1
  item_timeout: 5m
`;

/** Two items, one after the other: two work runs, then the review. */
export const TWO_ITEM_PLAN = `version: 1
title: A tiny library
items:
  - id: schema
    title: The record schema
    writes: [src/schema.js]
    prompt: |
      create src/schema.js "export const fields = [\\"id\\", \\"name\\"];\\n"
  - id: users
    title: Users built on the schema
    after: [schema]
    writes: [src/users.js]
    prompt: |
      create src/users.js "import { fields } from \\"./schema.js\\";\\nexport const users = fields;\\n"
`;

/** One item: the shortest mission (a work run, then the review). */
export const ONE_ITEM_PLAN = `version: 1
title: A guide
items:
  - id: guide
    title: A guide
    writes: [docs/]
    prompt: |
      create docs/guide.md "# Guide\\n"
`;

/** A `/naruto` comment carrying `plan` as its fenced naruto block. */
export function withPlan(command: string, plan: string): string {
  return `${command}\n\n\`\`\`naruto\n${plan}\`\`\`\n`;
}

export const REST_UPDATE_COMMENT = "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}";

/**
 * A mission that ran to its verdict with every item integrated: the state, the queue branch
 * with the items' files, the queue pull request with the one verdict comment, and exactly one
 * tracking comment on the issue, written by the App and showing the end state.
 */
export async function checkFinished(
  world: AppWorld,
  id: string,
  input: { items: readonly string[]; files: readonly string[]; issue?: number },
): Promise<Mission> {
  const runs = world.runs;
  const mission = await world.mission(id);
  check(mission !== null, `mission ${id} is not stored`, runs);
  const result = missionResult(mission);
  checkEqual(result.status, "done", "mission status", runs);
  checkEqual(result.verdict, "approve", "verdict", runs);
  checkEqual(
    Object.fromEntries(result.items.map((i) => [i.id, i.status])),
    Object.fromEntries(input.items.map((i) => [i, "integrated"])),
    "item statuses",
    runs,
  );
  for (const r of runs) for (const j of r.jobs) check(j.result === "success" || j.result === "skipped", `${j.name} of run ${r.id}: ${j.result}`, runs);

  const queue = `refs/heads/naruto/${id}`;
  checkEqual(await world.bareGit("rev-parse", queue), result.queue.head, "queue head on GitHub vs the state", runs);
  const files = (await world.bareGit("ls-tree", "-r", "--name-only", queue)).split("\n");
  for (const f of input.files) check(files.includes(f), `${f} is on the queue`, runs);

  const pulls = [...world.fake.repo(REPO).pulls.values()].filter((p) => p.headRef === `naruto/${id}`);
  checkEqual(
    pulls.map((p) => p.baseRef),
    ["main"],
    "queue pull requests",
    runs,
  );
  const verdicts = world.comments().filter((c) => c.body.startsWith(verdictMarker(id)));
  checkEqual(
    verdicts.map((c) => c.issueNumber),
    [pulls[0]?.number],
    "verdict comments (on the queue pull request)",
    runs,
  );
  check(verdicts[0]?.body.includes("naruto verdict: approve") === true, "the verdict comment states the verdict", runs);

  const tracking = world.comments().filter((c) => c.body.startsWith(trackingMarker(id)));
  const others = [...new Set(tracking.filter((c) => c.user.login !== world.botLogin).map((c) => c.user.login))];
  // The workflow's jobs trust (and update) only tracking comments by their `bot-login`.
  const hint =
    others.length === 0
      ? ""
      : ` (the workflow's jobs wrote as ${others.join(", ")}: with the App they need \`bot-login: <slug>[bot]\`, e.g. from vars.NARUTO_BOT_LOGIN, or they make their own tracking comment)`;
  checkEqual(
    tracking.map((c) => [c.issueNumber, c.user.login]),
    [[input.issue ?? 1, world.botLogin]],
    `tracking comments (one, by the App, on the issue)${hint}`,
    runs,
  );
  for (const item of input.items) check(tracking[0]?.body.includes(item) === true, `the tracking comment shows ${item}`, runs);
  world.fake.assertNoViolations();
  return mission;
}

/** A mission of many items that ended `done` with every item integrated (the scale scenarios): the stored mission. */
export async function checkAllIntegrated(world: Pick<AppWorld, "mission" | "runs">, id: string): Promise<Mission> {
  const mission = await world.mission(id);
  check(mission !== null, `mission ${id} is not stored`, world.runs);
  const result = missionResult(mission);
  checkEqual(result.status, "done", "mission status", world.runs);
  checkEqual(
    result.items.filter((i) => i.status !== "integrated").map((i) => `${i.id}: ${i.status} ${i.reason ?? ""}`),
    [],
    "items not integrated",
    world.runs,
  );
  return mission;
}

/** The App's updates of a comment (PATCH by its bot, answered 200), in order. */
export function appUpdatesOf(world: AppWorld, commentId: number): number {
  return world.fake.requests.filter(
    (r) => r.operation === REST_UPDATE_COMMENT && r.user === world.botLogin && r.status === 200 && r.path.endsWith(`/comments/${commentId}`),
  ).length;
}

/**
 * A mission refreshed onto `onto` and reviewed again (the refresh scenarios): its base, status and
 * verdict, its one recorded refresh from `from` (one item replayed, none dropped), the new base
 * verified first, and the queue branch on GitHub standing on `onto` at the state's head.
 */
export async function checkRefreshedOnto(world: AppWorld, id: string, input: { from: string; onto: string }): Promise<{ mission: Mission; head: string }> {
  const mission = await world.mission(id);
  if (mission === null) throw new Error(`mission ${id} is not stored`);
  checkEqual(mission.base, { ref: "main", commit: input.onto }, "the mission's base after the refresh", world.runs);
  checkEqual([mission.status, mission.verdict?.verdict], ["done", "approve"], "the mission reviewed again on the new base", world.runs);
  checkEqual(
    mission.queue.refreshes.map((r) => [r.from, r.to, r.replayed, r.dropped.length]),
    [[input.from, input.onto, 1, 0]],
    "the refresh recorded (a run overtaken by a newer base lands nothing)",
    world.runs,
  );
  checkEqual(mission.queue.base_check?.commit, input.onto, "the new base was verified first", world.runs);
  const head = await world.bareGit("rev-parse", `refs/heads/naruto/${id}`);
  checkEqual(head, mission.queue.head, "the queue branch on GitHub vs the state", world.runs);
  checkEqual(await world.bareGit("merge-base", input.onto, head), input.onto, "the queue stands on the new base", world.runs);
  return { mission, head };
}
