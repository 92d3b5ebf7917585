/**
 * The sweep starts the missions of `schedules:` (config at the default branch's head): one per
 * firing, with an issue of its own, never twice for a firing, not while the schedule's previous
 * mission is under way, not for a firing older than the window. Against the fake GitHub, on a
 * clock the test sets (always in the past: the fake stamps issues with the real time).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sweepMode } from "../../src/action/modes/sweep.ts";
import { scheduledMissionId } from "../../src/github-driver/schedules.ts";
import { REPO, startWorld, testConfig, type World } from "./world.ts";

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
// 03:00 UTC two days ago: a firing of "0 3 * * *" that is surely in the past.
const yesterday = new Date(Date.now() - 2 * DAY);
const FIRING = new Date(Date.UTC(yesterday.getUTCFullYear(), yesterday.getUTCMonth(), yesterday.getUTCDate(), 3, 0));

const PLAN = 'version: 1\ntitle: Nightly docs\nitems:\n  - id: guide\n    writes: [docs/guide.md]\n    prompt: |\n      create docs/guide.md "# Guide\\n"\n';
const CONFIG = testConfig(`schedules:
  - name: nightly
    cron: "0 3 * * *"
    plan: .github/naruto/nightly.yml
  - name: missing-plan
    cron: "0 3 * * *"
    plan: .github/naruto/none.yml
  - name: hourly-planned
    cron: "30 * * * *"
    task: Tidy the changelog
    approval: true
`);

let world: World;
let clock = FIRING.getTime();
const now = () => new Date(clock);
beforeAll(async () => {
  world = await startWorld({ config: CONFIG, files: { ".github/naruto/nightly.yml": PLAN } });
});
afterAll(async () => world.close());

async function sweep(): Promise<string> {
  const job = await world.job("publish", { now });
  await sweepMode(job.deps);
  return job.log.summaries.join("\n");
}

const issues = () => [...world.fake.repo(REPO).issues.values()].filter((i) => !i.isPull);
const dispatches = () => world.fake.dispatches.length;

describe("scheduled missions", () => {
  it("starts one mission per firing, on an issue of its own, with the plan file of the config", async () => {
    clock = FIRING.getTime() + 10 * MINUTE;
    const summary = await sweep();
    const id = scheduledMissionId(REPO, "nightly", FIRING);
    const mission = await world.mission(id);
    expect(mission.source).toMatchObject({ kind: "github", repo: REPO, comment_id: null, actor: "schedule:nightly" });
    expect(mission.task).toBe("Nightly docs");
    expect(mission.base).toEqual({ ref: "main", commit: await world.ref("refs/heads/main") });
    // The plan file is the mission's plan; the plan job checks it like a fenced plan.
    expect(mission.status).toBe("planning");
    expect(mission.plan_text).toBe(PLAN);
    expect(world.fake.dispatches.some((d) => d.inputs["mission"] === id && d.inputs["phase"] === "plan")).toBe(true);
    expect(await world.ref(`refs/heads/naruto/${id}`)).toBe(mission.base.commit);

    const issue = world.fake.repo(REPO).issues.get(mission.source.kind === "github" ? mission.source.issue : -1);
    expect(issue?.title).toMatch(/^naruto: nightly \(\d{4}-\d\d-\d\d 03:00 UTC\)$/);
    expect(issue?.user.login).toBe("github-actions[bot]");
    const comments = [...world.fake.repo(REPO).comments.values()].filter((c) => c.issueNumber === issue?.number);
    expect(comments.some((c) => c.body.includes(id))).toBe(true); // the tracking comment

    expect(summary).toContain(`schedule nightly: started ${id}`);
    // A plan file the config names but the branch does not hold: said, and nothing opened for it.
    expect(summary).toContain("schedule missing-plan: not started: its plan file .github/naruto/none.yml does not exist");
    expect(
      issues()
        .map((i) => i.title)
        .filter((t) => t.includes("missing-plan")),
    ).toEqual([]);
    // `30 * * * *` fired at 02:30, 40 minutes before: inside the window, so it started too.
    const hourly = await world.mission(scheduledMissionId(REPO, "hourly-planned", new Date(FIRING.getTime() - 30 * MINUTE)));
    expect(hourly.status).toBe("planning");
    expect(hourly.settings.approval).toBe(true);
    expect(hourly.task).toBe("Tidy the changelog");
  });

  it("starts nothing again for the same firing: no second issue, mission or dispatch", async () => {
    const before = { issues: issues().length, dispatches: dispatches() };
    clock += 5 * MINUTE;
    await sweep();
    expect(issues().length).toBe(before.issues);
    expect(dispatches()).toBe(before.dispatches);
  });

  it("skips a firing while the schedule's previous mission is under way", async () => {
    const previous = scheduledMissionId(REPO, "hourly-planned", new Date(FIRING.getTime() - 30 * MINUTE));
    clock = FIRING.getTime() + 35 * MINUTE; // 03:30: hourly-planned fires again
    const summary = await sweep();
    expect(summary).toContain(`schedule hourly-planned: the firing of`);
    expect(summary).toContain(`skipped: its previous mission ${previous} is still under way`);
    expect(issues().filter((i) => i.title.startsWith("naruto: hourly-planned")).length).toBe(1);
  });

  it("starts the next firing once the previous mission ended, and lets a firing older than the window go", async () => {
    // A day later the first nightly mission, which never got its plan, ends (planning failed)
    // in the same sweep, before the schedules are looked at: the new firing starts.
    clock = FIRING.getTime() + DAY + 20 * MINUTE;
    const started = await sweep();
    expect((await world.mission(scheduledMissionId(REPO, "nightly", FIRING))).status).toBe("failed");
    expect(started).toContain(`schedule nightly: started ${scheduledMissionId(REPO, "nightly", new Date(FIRING.getTime() + DAY))}`);
    expect(issues().filter((i) => i.title.startsWith("naruto: nightly")).length).toBe(2);

    // The day after, the sweep runs two hours late: that firing is let go.
    clock = FIRING.getTime() + 2 * DAY + 2 * 60 * MINUTE;
    await sweep();
    expect(issues().filter((i) => i.title.startsWith("naruto: nightly")).length).toBe(2);
    await expect(world.mission(scheduledMissionId(REPO, "nightly", new Date(FIRING.getTime() + 2 * DAY)))).rejects.toThrow(/no mission/);
  });
});

describe("scheduled missions with a profile that asks for this machine's login", () => {
  let loginWorld: World;
  beforeAll(async () => {
    loginWorld = await startWorld({
      config: `agents:\n  default: { preset: claude, login: true }\nschedules:\n  - name: nightly\n    cron: "0 3 * * *"\n    task: Tidy the changelog\n`,
    });
  });
  afterAll(async () => loginWorld.close());

  it("start none: the sweep's summary says why and what to give the agent instead; no issue, mission or dispatch", async () => {
    const job = await loginWorld.job("publish", { now: () => new Date(FIRING.getTime() + 10 * MINUTE) });
    await sweepMode(job.deps);
    const summary = job.log.summaries.join("\n");
    expect(summary).toContain("schedules not started: the default agent (Claude Code) has `login: true` in .github/naruto.yml");
    expect(summary).toContain("`CLAUDE_CODE_OAUTH_TOKEN`");
    await expect(loginWorld.mission(scheduledMissionId(REPO, "nightly", FIRING))).rejects.toThrow();
    expect([...loginWorld.fake.repo(REPO).issues.values()].filter((i) => i.title.includes("nightly"))).toEqual([]);
    expect(loginWorld.fake.dispatches).toHaveLength(0);
  });
});
