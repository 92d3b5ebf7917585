/**
 * A `refresh` run on Actions (issue 37), job by job: the queue job (no write token) replays the
 * queue onto the base branch's head and verifies it; the publish job, which runs nothing of the
 * repository, replays it again with the queue job's verify runs and takes the result only if it
 * is the same. A forged result (a commit added to the refreshed queue, a verify result it never
 * ran, a base that moved again) moves nothing on GitHub, and the issue says why.
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { QueueRecord } from "../../src/action/integrate/queue-record.ts";
import { gitText } from "../../src/git/run-git.ts";
import { testGit } from "../support/git-repo.ts";
import { newFolder, REPO, startWorld, testConfig, type Job, type World } from "./world.ts";

let world: World;
beforeAll(async () => {
  world = await startWorld({ config: testConfig("queue:\n  verify: test ! -e BROKEN\n") });
});
afterAll(async () => world.close());

const git = testGit();
const REFRESH = { phase: "refresh", items: [] } as const;
const recordPath = (artifacts: string) => join(artifacts, "naruto-queue", "queue.json");
const readRecord = async (artifacts: string) => JSON.parse(await readFile(recordPath(artifacts), "utf8")) as QueueRecord;
const env = { GIT_AUTHOR_NAME: "x", GIT_AUTHOR_EMAIL: "x@x", GIT_COMMITTER_NAME: "x", GIT_COMMITTER_EMAIL: "x@x" };

/** A mission whose one item is on the queue. */
async function integrated(item: string): Promise<string> {
  const plan = [
    "version: 1",
    "title: Files",
    "items:",
    `  - id: ${item}`,
    `    writes: [src/${item}.ts]`,
    "    prompt: |",
    `      create src/${item}.ts "export const ${item} = 1;\\n"`,
  ].join("\n");
  const id = await world.plannedMission(`/naruto files\n\n\`\`\`naruto\n${plan}\n\`\`\``);
  await world.integrate(id, { phase: "work", items: [{ item, attempt: 1 }] }, await world.workRun(id, item));
  expect((await world.mission(id)).items[0]?.status).toBe("integrated");
  return id;
}

/** main moves on GitHub: one commit adding `path`. */
async function moveMain(path: string): Promise<string> {
  const dir = world.fake.repo(REPO).dir;
  const head = await gitText(git, { args: ["rev-parse", "refs/heads/main"], cwd: dir });
  const blob = await gitText(git, { args: ["hash-object", "-w", "--stdin"], cwd: dir, input: `${path}\n` });
  const tree = await gitText(git, {
    args: ["mktree"],
    cwd: dir,
    input: `${await gitText(git, { args: ["ls-tree", head], cwd: dir })}\n100644 blob ${blob}\t${path}\n`,
  });
  const commit = await gitText(git, { args: ["commit-tree", tree, "-p", head, "-m", `add ${path}`], cwd: dir, env });
  await gitText(git, { args: ["update-ref", "refs/heads/main", commit, head], cwd: dir });
  return commit;
}

const issueComments = () => [...world.fake.repo(REPO).comments.values()].filter((c) => c.issueNumber === 1).map((c) => c.body);

describe("a refresh run", () => {
  it("replays the queue onto the moved base, verified, and moves the queue branch; the mission goes to review again", async () => {
    const id = await integrated("alpha");
    const before = await world.mission(id);
    const main = await moveMain("NEWS.md");
    const { queue, publish } = await world.integrate(id, REFRESH, await newFolder("naruto-artifacts-"));
    const after = await world.mission(id);
    expect(after.base).toEqual({ ref: "main", commit: main });
    expect(after.queue.refreshes).toMatchObject([{ from: before.base.commit, to: main, replayed: 1, dropped: [] }]);
    expect(after.queue.base_check).toMatchObject({ commit: main, green: true });
    const head = await world.ref(`refs/heads/naruto/${id}`);
    expect(head).toBe(after.queue.head);
    expect(await gitText(git, { args: ["rev-list", "--first-parent", `${main}..${head}`], cwd: world.fake.repo(REPO).dir })).toBe(head);
    expect(after.items[0]).toMatchObject({ status: "integrated", commit: head });
    // The verify ran in the queue job only; publish replayed its results.
    expect(queue.log.lines.join("\n")).toContain(`replayed onto main at ${main.slice(0, 12)}: 1 item(s) replayed and verified`);
    expect(publish.log.lines.join("\n")).toContain(`on main at ${main.slice(0, 12)}`);
    expect(publish.log.lines.join("\n")).not.toMatch(/sandbox|verify of/);
    expect(
      world.fake.dispatches
        .filter((d) => d.inputs["mission"] === id)
        .map((d) => d.inputs["phase"])
        .at(-1),
    ).toBe("review");
  });

  it("refuses a forged result: nothing moves on GitHub, and the issue says why", { timeout: 180_000 }, async () => {
    const id = await integrated("beta");
    const forgeries: Readonly<Record<string, { forge: (folder: string, queue: Job) => Promise<string | null>; reason: string }>> = {
      "an extra commit on the refreshed queue": {
        forge: async (folder, queue) => {
          const record = await readRecord(folder);
          const dir = queue.deps.workspace;
          const evil = await gitText(git, { args: ["commit-tree", `${record.head}^{tree}`, "-p", record.head, "-m", "naruto: nothing to see"], cwd: dir, env });
          await gitText(git, { args: ["update-ref", `refs/heads/naruto/${id}`, evil], cwd: dir });
          const bundle = join(folder, "naruto-queue", "queue.bundle");
          await rm(bundle, { force: true });
          await gitText(git, { args: ["bundle", "create", bundle, `refs/heads/naruto/${id}`, `^${record.refresh?.onto.commit ?? ""}`], cwd: dir });
          await writeFile(recordPath(folder), JSON.stringify({ ...record, head: evil }));
          return evil;
        },
        reason: "the queue job's refresh was refused: its queue head",
      },
      "green for a candidate it never verified": {
        forge: async (folder) => (await writeFile(recordPath(folder), JSON.stringify({ ...(await readRecord(folder)), verify: [] })), null),
        reason: "the queue job's refresh was refused: it has no verify result for the candidate",
      },
    };
    for (const [name, { forge, reason }] of Object.entries(forgeries)) {
      const before = await world.mission(id);
      await moveMain(`${name.length}.md`);
      let forged: string | null = null;
      await world.integrate(id, REFRESH, await newFolder("naruto-artifacts-"), {
        beforePublish: async (folder, queue) => void (forged = await forge(folder, queue)),
      });
      const after = await world.mission(id);
      expect(after.base, name).toEqual(before.base);
      expect(await world.ref(`refs/heads/naruto/${id}`), name).toBe(before.queue.head);
      if (forged !== null) {
        const onGitHub = await gitText(git, { args: ["cat-file", "-e", `${forged}^{commit}`], cwd: world.fake.repo(REPO).dir }).then(
          () => true,
          () => false,
        );
        expect(onGitHub, `${name}: the forged commit is on GitHub`).toBe(false);
      }
      expect(
        issueComments().some((b) => b.includes(`refresh: ${reason}`)),
        name,
      ).toBe(true);
    }
    // Untouched, the refresh goes through.
    const main = await moveMain("last.md");
    await world.integrate(id, REFRESH, await newFolder("naruto-artifacts-"));
    expect((await world.mission(id)).base.commit).toBe(main);
  });

  it("leaves the queue as it was when the new base is red, and says so on the issue", async () => {
    const id = await integrated("delta");
    const before = await world.mission(id);
    const main = await moveMain("BROKEN");
    await world.integrate(id, REFRESH, await newFolder("naruto-artifacts-"));
    const after = await world.mission(id);
    expect(after.base).toEqual(before.base);
    expect(await world.ref(`refs/heads/naruto/${id}`)).toBe(before.queue.head);
    expect(issueComments().some((b) => b.includes("refresh: the queue was not refreshed: the base is red") && b.includes(main.slice(0, 12)))).toBe(true);
    // main is green again: the next refresh goes through.
    await gitText(git, { args: ["update-ref", "refs/heads/main", `${main}^`], cwd: world.fake.repo(REPO).dir });
  });

  it("moves nothing when the base moved again while the queue job ran, and asks for another refresh", async () => {
    const id = await integrated("gamma");
    const before = await world.mission(id);
    await moveMain("first.md");
    const dispatched = world.fake.dispatches.length;
    await world.integrate(id, REFRESH, await newFolder("naruto-artifacts-"), { beforePublish: async () => void (await moveMain("second.md")) });
    const after = await world.mission(id);
    expect(after.base).toEqual(before.base);
    expect(await world.ref(`refs/heads/naruto/${id}`)).toBe(before.queue.head);
    expect(issueComments().some((b) => b.includes("main moved again while the queue was replayed"))).toBe(true);
    expect(world.fake.dispatches.slice(dispatched).map((d) => [d.inputs["mission"], d.inputs["phase"]])).toEqual([[id, "refresh"]]);
  });
});
