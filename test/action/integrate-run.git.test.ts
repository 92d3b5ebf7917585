import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runIdOf } from "../../src/github-driver/mission-id.ts";
import { prepareWork } from "../../src/action/modes/work.ts";
import { readPrepared } from "../../src/action/prepared.ts";
import { newFolder, startWorld, testConfig, type World } from "./world.ts";

let world: World;
beforeAll(async () => {
  world = await startWorld({ config: testConfig() });
});
afterAll(async () => world.close());

const item = (id: string, after: string | null) => [
  `  - id: ${id}`,
  `    writes: [src/${id}.ts]`,
  ...(after ? [`    after: [${after}]`] : []),
  "    prompt: |",
  `      create src/${id}.ts "export const ${id} = 1;\\n"`,
];
const PLAN = [
  "version: 1",
  "title: Three files",
  "items:",
  ...item("alpha", null),
  ...item("gamma", null),
  ...item("delta", null),
  ...item("beta", "alpha"),
].join("\n");

describe("an integrate run", () => {
  // A whole mission of jobs: ~25 s here, over a minute on a machine loaded twice over (a hang guard, not a time limit).
  it("integrates the legs of a work run that ended, while another leg of the same run still works", { timeout: 180_000 }, async () => {
    const id = await world.plannedMission(`/naruto three files\n\n\`\`\`naruto\n${PLAN}\n\`\`\``);
    let mission = await world.mission(id);
    const run = runIdOf(mission.items[0]?.attempts[0]?.runner ?? null)!;
    // alpha, gamma and delta became ready together: one run, a matrix of three.
    expect(mission.items.map((i) => [i.id, i.status, runIdOf(i.attempts[0]?.runner ?? null)])).toEqual([
      ["alpha", "running", run],
      ["gamma", "running", run],
      ["delta", "running", run],
      ["beta", "pending", null],
    ]);
    const batch = world.fake.dispatches.filter((d) => d.inputs["mission"] === id && d.inputs["phase"] === "work");
    expect(batch.map((d) => JSON.parse(d.inputs["items"] ?? "[]"))).toEqual([
      [
        { item: "alpha", attempt: 1 },
        { item: "gamma", attempt: 1 },
        { item: "delta", attempt: 1 },
      ],
    ]);

    // alpha's leg ended; gamma and delta still work. The integrate run sees alpha's leg ended only,
    // and delta's leg ends after its queue job started: publish leaves it to the next run.
    const alpha = await world.workRun(id, "alpha");
    const integrate = { phase: "integrate" as const, items: [], run };
    const first = await world.integrate(id, integrate, alpha, { beforePublish: async () => void (await world.workRun(id, "delta")) });
    expect(first.publish.log.lines.join("\n")).toContain("delta#1: ended after the queue job started; left to the next integrate run");
    mission = await world.mission(id);
    expect(mission.items.map((i) => [i.id, i.status])).toEqual([
      ["alpha", "integrated"],
      ["gamma", "running"],
      ["delta", "running"],
      ["beta", "running"],
    ]);
    expect(await world.ref(`refs/heads/naruto/${id}`)).toBe(mission.queue.head);
    // beta started at once, from the queue that holds alpha, in a run of its own.
    expect(mission.items[3]?.attempts[0]?.base).toBe(mission.items[0]?.commit);
    expect(runIdOf(mission.items[3]?.attempts[0]?.runner ?? null)).not.toBe(run);

    // Every leg of the run ended: its own queue and publish take what is left, alpha's artifact
    // is ignored (no longer in flight).
    await world.workRun(id, "gamma");
    await world.integrate(
      id,
      { phase: "work", items: ["alpha", "gamma", "delta"].map((i) => ({ item: i, attempt: 1 })) },
      await newFolder("naruto-artifacts-"),
    );
    mission = await world.mission(id);
    expect(mission.items.map((i) => [i.id, i.status])).toEqual([
      ["alpha", "integrated"],
      ["gamma", "integrated"],
      ["delta", "integrated"],
      ["beta", "running"],
    ]);
    expect(mission.items.map((i) => i.attempts.length)).toEqual([1, 1, 1, 1]);

    // The integrate run the App started for the last leg comes after: nothing is left for it
    // (no leg of the run is in flight), and it asks the API nothing.
    const before = world.fake.requests.length;
    const late = await world.integrate(id, integrate, await newFolder("naruto-artifacts-"));
    expect(
      world.fake.requests
        .slice(before)
        .filter((r) => r.kind === "rest")
        .map((r) => r.operation),
    ).toEqual([]);
    expect(late.queue.log.lines.join("\n")).toContain(`no leg of run ${run} is waiting`);
    expect(late.publish.log.lines.join("\n")).toContain("nothing to integrate");
    expect(await world.mission(id)).toEqual(mission);
  });

  it("takes nothing for an integrate run of a run that started none of the mission's attempts", async () => {
    const id = await world.plannedMission(`/naruto three files\n\n\`\`\`naruto\n${PLAN}\n\`\`\``);
    const run = runIdOf((await world.mission(id)).items[0]?.attempts[0]?.runner ?? null)!;
    const alpha = await world.workRun(id, "alpha");
    // An integrate run for some other run of the repository: alpha was not started there (the
    // state says where each attempt runs), so it stays in flight.
    await world.integrate(id, { phase: "integrate", items: [], run: run + 1000 }, alpha);
    const mission = await world.mission(id);
    expect(mission.items[0]).toMatchObject({ id: "alpha", status: "running" });
    expect(await world.ref(`refs/heads/naruto/${id}--alpha`)).toBeNull();
  });
  it("reads the mission and the config over git in a leg: no API request, however many legs", async () => {
    const id = await world.plannedMission(`/naruto three files\n\n\`\`\`naruto\n${PLAN}\n\`\`\``);
    const job = await world.job("agent", { checkout: `naruto/${id}` });
    const before = world.fake.requests.length;
    await prepareWork(job.deps, { mission: id, items: "alpha#1" });
    expect(
      world.fake.requests
        .slice(before)
        .filter((r) => r.kind === "rest")
        .map((r) => r.operation),
    ).toEqual([]);
    const prepared = await readPrepared(job.log.outputs["prepared"] ?? "");
    expect(prepared).toMatchObject({ kind: "work", item: "alpha", attempt: 1 });
    expect(prepared.kind === "work" ? prepared.configText : null).toBe(testConfig());
  });
});
