/**
 * The `command` mode (app-less): `/naruto` comments against the fake GitHub — a maintainer's
 * request becomes a mission, its queue branch, a tracking comment and one plan dispatch; a
 * redelivery repeats nothing; an outsider gets one polite reply and nothing else changes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commandMode } from "../../src/action/modes/command.ts";
import { missionIdFor } from "../../src/github-driver/mission-id.ts";
import { plannedEvent } from "../../src/engine/planned-event.ts";
import { applyEvent } from "../../src/mission/store.ts";
import { checkPlan } from "../../src/plan/index.ts";
import { BOT, REPO, startWorld, type World } from "./world.ts";

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => world.close());

const PLAN =
  'version: 1\ntitle: Two files\nitems:\n  - id: alpha\n    writes: [src/alpha.ts]\n    prompt: |\n      create src/alpha.ts "export const alpha = 1;\\n"\n';

async function command(event: Awaited<ReturnType<World["comment"]>>) {
  const job = await world.job("command");
  const outcome = await commandMode(job.deps, { event, selfLogins: [BOT], pullRequestHead: async () => null });
  return { job, outcome };
}

function comments() {
  return [...world.fake.repo(REPO).comments.values()];
}

describe("command mode", () => {
  it("turns a maintainer's /naruto into a mission, its queue branch, a tracking comment and one plan dispatch; a redelivery repeats nothing", async () => {
    const event = await world.comment("octo-maintainer", `/naruto make two files\n\n\`\`\`naruto\n${PLAN}\`\`\``);
    const { job, outcome } = await command(event);
    const id = missionIdFor(REPO, event.comment.id);
    expect(outcome).toEqual({ kind: "mission", mission: id, created: true, dispatched: [] });
    expect(job.log.outputs["mission"]).toBe(id);

    const mission = await world.mission(id);
    expect(mission).toMatchObject({
      status: "planning",
      task: "make two files",
      plan_text: PLAN.trimEnd(),
      source: { kind: "github", repo: REPO, issue: 1, comment_id: event.comment.id, actor: "octo-maintainer" },
    });
    expect(mission.base).toEqual({ ref: "main", commit: await world.ref("refs/heads/main") });
    expect(await world.ref(`refs/heads/naruto/${id}`)).toBe(mission.base.commit);
    const dispatches = world.fake.dispatches.filter((d) => d.inputs["mission"] === id);
    expect(dispatches.map((d) => [d.ref, d.inputs["phase"]])).toEqual([["main", "plan"]]);
    const tracking = comments().filter((c) => c.body.startsWith(`<!-- naruto:tracking:${id} -->`));
    expect(tracking).toHaveLength(1);
    expect(tracking[0]?.user.login).toBe(BOT);
    expect(world.fake.repo(REPO).reactions.some((r) => r.content === "eyes" && r.subject.kind === "comment" && r.subject.id === event.comment.id)).toBe(true);

    const again = await command(event);
    expect(again.outcome).toMatchObject({ kind: "mission", mission: id, created: false });
    expect(world.fake.dispatches.filter((d) => d.inputs["mission"] === id)).toHaveLength(1);
    expect(comments().filter((c) => c.body.startsWith(`<!-- naruto:tracking:${id} -->`))).toHaveLength(1);
    expect((await world.mission(id)).seq).toBe(mission.seq);

    // A writer that finds the mission made by another (a second replica handling the same
    // delivery while the first has not posted yet) posts no tracking comment of its own: both
    // would find none and each post one. The one that made the mission posts it.
    world.fake.repo(REPO).comments.delete(tracking[0]!.id);
    expect((await command(event)).outcome).toMatchObject({ kind: "mission", mission: id, created: false });
    expect(comments().filter((c) => c.body.startsWith(`<!-- naruto:tracking:${id} -->`))).toHaveLength(0);
  });

  it("answers an outsider once, politely, and changes nothing else", async () => {
    const dispatchesBefore = world.fake.dispatches.length;
    const event = await world.comment("octo-outsider", "/naruto delete everything");
    const first = await command(event);
    const second = await command(event);
    expect(first.outcome).toEqual({ kind: "refused", reason: "@octo-outsider has read permission; naruto needs write or more" });
    expect(second.outcome.kind).toBe("refused");
    const replies = comments().filter((c) => c.body.startsWith(`<!-- naruto:reply:${event.comment.id} -->`));
    expect(replies).toHaveLength(1);
    expect(replies[0]?.body).toContain("Sorry, naruto did not start");
    expect(world.fake.dispatches.length).toBe(dispatchesBefore);
    expect(await world.ref(`refs/heads/naruto-state/${missionIdFor(REPO, event.comment.id)}`)).toBeNull();
  });

  it("cancels the mission of the issue and says so in the tracking comment", async () => {
    const start = await world.comment("octo-maintainer", "/naruto plan something small");
    const { outcome } = await command(start);
    if (outcome.kind !== "mission") throw new Error("no mission");
    const cancel = await world.comment("octo-maintainer", "/naruto cancel");
    expect((await command(cancel)).outcome).toMatchObject({ kind: "mission", mission: outcome.mission });
    const mission = await world.mission(outcome.mission);
    expect(mission).toMatchObject({ status: "cancelled", reason: "cancelled by octo-maintainer" });
    const tracking = comments().find((c) => c.body.startsWith(`<!-- naruto:tracking:${outcome.mission} -->`));
    expect(tracking?.body).toContain("· cancelled ·");
  });

  it("finds the issue's mission by the issue's index refs, reading no mission of another issue", async () => {
    world.fake.repo(REPO).issues.set(2, { ...world.fake.repo(REPO).issues.get(1)!, number: 2 });
    const others: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { outcome } = await command(await world.comment("octo-maintainer", `/naruto plan elsewhere ${i}`, 2));
      if (outcome.kind === "mission") others.push(outcome.mission);
    }
    const start = await world.comment("octo-maintainer", "/naruto plan this issue's own");
    const { outcome } = await command(start);
    if (outcome.kind !== "mission") throw new Error("no mission");
    expect(await world.ref(`refs/heads/naruto-state/by-issue/1/${outcome.mission}`)).not.toBeNull();
    const before = world.fake.requests.length;
    expect((await command(await world.comment("octo-maintainer", "/naruto status"))).outcome).toMatchObject({ kind: "mission", mission: outcome.mission });
    const read = world.fake.requests.slice(before).map((r) => r.path);
    for (const other of others)
      expect(
        read.filter((p) => p.includes(other)),
        other,
      ).toEqual([]);
    expect(
      read.filter((p) => decodeURIComponent(p).includes("matching-refs/heads/naruto-state/by-issue/1/")),
      read.join("\n"),
    ).toHaveLength(1);
  });

  it("approve starts a plan that waits for it: one workflow run whose matrix is every ready item", async () => {
    const start = await world.comment("octo-maintainer", `/naruto plan two things\n\n\`\`\`naruto\n${PLAN}  - id: beta\n    writes: [src/beta.ts]\n\`\`\``);
    const { job, outcome } = await command(start);
    if (outcome.kind !== "mission") throw new Error("no mission");
    // What the plan run's publish job records (see mission.git.test.ts for the whole way).
    const planned = await applyEvent(
      job.deps.store,
      outcome.mission,
      plannedEvent(checkPlan((await world.mission(outcome.mission)).plan_text ?? ""), new Date().toISOString()),
    );
    expect(planned.mission.status).toBe("awaiting_approval");
    const approve = await world.comment("octo-maintainer", "/naruto approve");
    const approved = await command(approve);
    expect(approved.outcome).toMatchObject({
      kind: "mission",
      mission: outcome.mission,
      dispatched: [
        { item: "alpha", attempt: 1 },
        { item: "beta", attempt: 1 },
      ],
    });
    const runs = world.fake.dispatches.filter((d) => d.inputs["mission"] === outcome.mission && d.inputs["phase"] === "work");
    expect(runs.map((d) => JSON.parse(d.inputs["items"] ?? "[]"))).toEqual([
      [
        { item: "alpha", attempt: 1 },
        { item: "beta", attempt: 1 },
      ],
    ]);
    const mission = await world.mission(outcome.mission);
    const url = `${world.fake.url}/${REPO}/actions/runs/${runs[0]?.runId}`;
    expect(mission.items.map((i) => i.attempts[0]?.runner)).toEqual([url, url]);
  });
});

describe("command mode, with a profile that asks for this machine's login", () => {
  // `login: true` copies a logged-in CLI's files from the machine naruto runs on: a runner has none.
  let loginWorld: World;
  beforeAll(async () => {
    loginWorld = await startWorld({ config: `agents:\n  default: { preset: claude }\n  mine: { preset: codex, login: true }\n` });
  });
  afterAll(async () => loginWorld.close());

  it("refuses the mission before anything is made, with a reply that names the profile and the secret to give it instead", async () => {
    const event = await loginWorld.comment("octo-maintainer", "/naruto add input validation");
    const job = await loginWorld.job("command");
    const outcome = await commandMode(job.deps, { event, selfLogins: [BOT], pullRequestHead: async () => null });
    expect(outcome).toEqual({ kind: "replied", reason: "login on a runner" });
    const id = missionIdFor(REPO, event.comment.id);
    expect(loginWorld.fake.dispatches).toHaveLength(0);
    expect(await loginWorld.ref(`refs/heads/naruto/${id}`)).toBeNull();
    const replies = [...loginWorld.fake.repo(REPO).comments.values()].filter((c) => c.body.startsWith(`<!-- naruto:reply:${event.comment.id} -->`));
    expect(replies).toHaveLength(1);
    const body = replies[0]?.body ?? "";
    expect(body).toContain('naruto did not start: agent profile "mine" (Codex CLI) has `login: true` in .github/naruto.yml');
    expect(body).toContain("a GitHub runner has no login to copy");
    expect(body).toContain("`CODEX_API_KEY`");
    expect(body).toContain("work-env");
    expect(body).toContain("naruto run --login");
    expect(body).not.toContain('"default"');
  });
});
