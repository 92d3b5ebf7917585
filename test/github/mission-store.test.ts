/**
 * The mission store on GitHub, over real HTTP: the store contract every adapter keeps
 * (test/support/store-conformance.ts), then 50 separate clients saving different events to one
 * mission while the fake loses some answers (5xx after the write took effect) and fails others
 * (5xx before), and racing writers get GitHub's real 422 "not a fast forward".
 *
 * Runs against the fake GitHub, or against real GitHub with the variables described in
 * port.test.ts (each store then lives under a scratch branch prefix, deleted at the end; the
 * fault test needs the fake and is skipped).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CorruptMissionError, createGitHubMissionStore, GITHUB_STATE_REF_PREFIX, githubSaveBackoff } from "../../src/store/index.ts";
import type { MissionEvent } from "../../src/mission/events.ts";
import { applyEvent } from "../../src/mission/store.ts";
import { at, item, planned, requested } from "../support/mission-builders.ts";
import { describeStoreConformance, HEAVY_TEST_TIMEOUT_MS } from "../support/store-conformance.ts";
import type { FakeGitHub } from "../support/fake-github/index.ts";
import { startTarget, type PortTarget } from "./target.ts";

// 50 racing writers over HTTP to a fake that runs git for every request: minutes on a busy
// machine, never an assertion on time.
vi.setConfig({ testTimeout: 300_000 });

let t: PortTarget;
let stores = 0;

beforeAll(async () => {
  t = await startTarget(process.env);
});
afterAll(async () => {
  t.fake?.assertNoViolations();
  await t.close();
});

/** The GraphQL operations the fake answered since request `from`, with their statuses. */
function graphqlSent(fake: FakeGitHub, from: number): string[] {
  return fake.requests
    .slice(from)
    .filter((r) => r.kind === "graphql")
    .map((r) => `${/query (naruto_\w+)/.exec((r.body as { query: string }).query)?.[1] ?? "?"} ${r.status}`);
}

/** A namespace no other test uses: the store in it starts empty. */
const freshPrefix = () => `${t.scratch}store-${++stores}/`;

describeStoreConformance("GitHub", async () => createGitHubMissionStore({ github: t.github, refPrefix: freshPrefix() }), { concurrent: 50 });

describe("GitHub mission store", () => {
  it("keeps each mission on its own branch under naruto-state/, with the history of its saves", async () => {
    const github = t.github;
    const refPrefix = freshPrefix();
    const store = createGitHubMissionStore({ github, refPrefix });
    await applyEvent(store, "m-test1", requested());
    await applyEvent(store, "m-test1", planned([item("a")]));
    const head = await github.getRef(`${refPrefix}m-test1`);
    expect(head).not.toBeNull();
    const commit = await github.getCommit(head ?? "");
    expect(commit.message).toMatch(/^m-test1: \w+ \(seq 2\)\n\nNaruto-Save: \S+$/);
    const parent = await github.getCommit(commit.parents[0] ?? "");
    expect(parent.parents).toEqual([]); // the first save is a root: no history shared with code
    expect(JSON.parse((await github.readFile({ path: "document.json", ref: parent.sha })) ?? "").seq).toBe(1);
    expect(JSON.parse((await github.readFile({ path: "items/0000/00000.json", ref: head ?? "" })) ?? "").id).toBe("a");
    // The code branch is untouched.
    expect(await github.readFile({ path: "document.json", ref: t.defaultBranch })).toBeNull();
  });

  it("keeps missions under refs/heads/naruto-state/ unless told otherwise", async () => {
    const store = createGitHubMissionStore({ github: t.github });
    await applyEvent(store, "m-test1", requested());
    expect(await store.list()).toContain("m-test1");
    expect(await t.github.getRef(`${GITHUB_STATE_REF_PREFIX}m-test1`)).not.toBeNull();
    expect(await t.github.deleteRef(`${GITHUB_STATE_REF_PREFIX}m-test1`)).toBe(true);
  });

  it("lets only one of two writers win with the same mission from the same version (a redelivered event)", async () => {
    const refPrefix = freshPrefix();
    const [a, b] = [createGitHubMissionStore({ github: t.makeGitHub(), refPrefix }), createGitHubMissionStore({ github: t.makeGitHub(), refPrefix })];
    await applyEvent(a, "m-test1", requested());
    const [seenA, seenB] = [await a.load("m-test1"), await b.load("m-test1")];
    if (seenA === null || seenB === null) throw new Error("saved mission missing");
    expect(seenB.version).toBe(seenA.version);
    // Both compute the same next mission; without a unique commit both moves would be no-ops that "win".
    const results = await Promise.all([a.save(seenA.mission, seenA.version), b.save(seenB.mission, seenB.version)]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
  });

  it(
    "loses no update when 50 separate clients save different events while GitHub fails some requests",
    async (ctx) => {
      const fake = t.fake;
      if (fake === null) return ctx.skip();
      const refPrefix = freshPrefix();
      const store = createGitHubMissionStore({ github: t.github, refPrefix });
      const ids = Array.from({ length: 50 }, (_, i) => `i${i}`);
      await applyEvent(store, "m-test1", requested({ max_parallel: 50 }));
      await applyEvent(store, "m-test1", planned(ids.map((id) => item(id))));
      const stateRef = `/repos/acme/demo/git/refs/${encodeURIComponent(`${refPrefix.slice("refs/".length)}m-test1`)}`;
      fake.faults.push(
        { method: "PATCH", path: stateRef, status: 502, after: true, times: 5 }, // the move happened, its answer was lost
        { method: "PATCH", path: stateRef, status: 503, times: 5 }, // the move did not happen
        { method: "POST", path: /\/git\/commits$/, status: 500, times: 5 },
        { method: "POST", path: "/graphql", status: 502, times: 5 }, // a load's read of the records
      );
      const from = fake.requests.length;
      const events: MissionEvent[] = ids.map((id) => ({
        type: "attempt_started",
        at: at(2),
        item: id,
        attempt: 1,
        base: "b".repeat(40),
        runner: `runner-${id}`,
      }));
      // A store per writer, as in separate jobs: nothing is coordinated in memory, only on GitHub.
      await Promise.all(
        events.map((e) =>
          applyEvent(createGitHubMissionStore({ github: t.makeGitHub(), refPrefix }), "m-test1", e, { attempts: 200, backoff: githubSaveBackoff }),
        ),
      );
      const final = (await store.load("m-test1"))?.mission;
      expect(final?.items.map((i) => i.attempts.map((a) => a.runner))).toEqual(ids.map((id) => [`runner-${id}`]));
      expect(final?.seq).toBe(2 + 50);
      const sent = fake.requests.slice(from);
      // Racing writers really met GitHub's 422, and the injected failures were all used.
      expect(sent.filter((r) => r.method === "PATCH" && r.status === 422).length).toBeGreaterThan(0);
      expect(fake.faults).toEqual([]);
    },
    HEAVY_TEST_TIMEOUT_MS,
  );

  it("sends only the records a save changed, on top of the version it is based on", async (ctx) => {
    const fake = t.fake;
    if (fake === null) return ctx.skip();
    const refPrefix = freshPrefix();
    const store = createGitHubMissionStore({ github: t.github, refPrefix });
    const ids = Array.from({ length: 100 }, (_, i) => `i${i}`);
    await applyEvent(store, "m-test1", requested({ max_parallel: 100 }));
    await applyEvent(store, "m-test1", planned(ids.map((id) => item(id))));
    const from = fake.requests.length;
    await applyEvent(store, "m-test1", { type: "attempt_started", at: at(2), item: "i70", attempt: 1, base: "b".repeat(40), runner: "runner-i70" });
    const trees = fake.requests.slice(from).filter((r) => r.method === "POST" && r.path.endsWith("/git/trees"));
    expect(trees).toHaveLength(1);
    const body = trees[0]?.body as { base_tree?: string; tree: { path: string; content: string }[] };
    expect(body.base_tree).toMatch(/^[0-9a-f]{40}$/);
    // The document (its seq and status moved) and the one item the event changed; not 100 records.
    expect(body.tree.map((e) => e.path).sort()).toEqual(["document.json", "items/0001/00070.json"]);
    // Another process reads the same mission, every record in one GraphQL request.
    const reads = fake.requests.length;
    const other = await createGitHubMissionStore({ github: t.makeGitHub(), refPrefix }).load("m-test1");
    expect(fake.requests.slice(reads).map((r) => (r.kind === "graphql" ? "graphql" : r.operation))).toEqual([
      "GET /repos/{owner}/{repo}/git/ref/{ref}",
      "graphql",
    ]);
    expect(other?.mission).toEqual((await store.load("m-test1"))?.mission);
    expect(other?.mission.items[70]?.attempts[0]?.runner).toBe("runner-i70");
  });

  it("reads a mission too large for one GraphQL answer a level of its tree at a time, and from then on at once so", async (ctx) => {
    const fake = t.fake;
    if (fake === null) return ctx.skip();
    const refPrefix = freshPrefix();
    const store = createGitHubMissionStore({ github: t.github, refPrefix });
    await applyEvent(store, "m-test1", requested({ max_parallel: 200 }));
    await applyEvent(store, "m-test1", planned(Array.from({ length: 200 }, (_, i) => item(`i${i}`, [], { prompt: `item ${i}: ${"details ".repeat(40)}` }))));
    const sent = (from: number) => graphqlSent(fake, from);
    // Every record at once is about 180 KB here; GitHub gives up on a query after 10 s.
    fake.setGraphqlAnswerLimit(100_000);
    try {
      const other = createGitHubMissionStore({ github: t.makeGitHub(), refPrefix });
      const from = fake.requests.length;
      const read = await other.load("m-test1");
      // Once (no retry of a query GitHub could not finish), then the root, items/ and its four folders.
      expect(sent(from)).toEqual(["naruto_commitFiles 502", ...Array.from({ length: 6 }, () => "naruto_treeLevel 200")]);
      expect(read?.mission).toEqual((await store.load("m-test1"))?.mission);
      await applyEvent(store, "m-test1", { type: "attempt_started", at: at(2), item: "i150", attempt: 1, base: "b".repeat(40), runner: "runner-i150" });
      const again = fake.requests.length;
      const next = await other.load("m-test1");
      expect(sent(again)).toEqual(Array.from({ length: 6 }, () => "naruto_treeLevel 200"));
      expect(next?.mission.items[150]?.attempts[0]?.runner).toBe("runner-i150");
    } finally {
      fake.setGraphqlAnswerLimit(null);
    }
  });

  it("reads a small mission at once again after one passing 502", async (ctx) => {
    const fake = t.fake;
    if (fake === null) return ctx.skip();
    const refPrefix = freshPrefix();
    const store = createGitHubMissionStore({ github: t.github, refPrefix });
    await applyEvent(store, "m-test1", requested());
    await applyEvent(store, "m-test1", planned([item("a"), item("b")]));
    const sent = (from: number) => graphqlSent(fake, from);
    const other = createGitHubMissionStore({ github: t.makeGitHub(), refPrefix });
    fake.faults.push({ path: "/graphql", status: 502, times: 1 });
    const from = fake.requests.length;
    expect((await other.load("m-test1"))?.mission.items.map((i) => i.id)).toEqual(["a", "b"]);
    expect(sent(from)).toEqual(["naruto_commitFiles 502", "naruto_treeLevel 200", "naruto_treeLevel 200", "naruto_treeLevel 200"]);
    await applyEvent(store, "m-test1", { type: "attempt_started", at: at(2), item: "b", attempt: 1, base: "b".repeat(40), runner: "runner-b" });
    const again = fake.requests.length;
    expect((await other.load("m-test1"))?.mission.items[1]?.attempts[0]?.runner).toBe("runner-b");
    expect(sent(again)).toEqual(["naruto_commitFiles 200"]);
  });

  it("reads a record GitHub gives no text for inline (over 512,000 bytes) through the blob API", async (ctx) => {
    const fake = t.fake;
    if (fake === null) return ctx.skip();
    const refPrefix = freshPrefix();
    const store = createGitHubMissionStore({ github: t.github, refPrefix });
    const prompt = `${"a long prompt ".repeat(40_000)}and its end`;
    await applyEvent(store, "m-test1", requested());
    await applyEvent(store, "m-test1", planned([item("big", [], { prompt }), item("small")]));
    const from = fake.requests.length;
    const read = await createGitHubMissionStore({ github: t.makeGitHub(), refPrefix }).load("m-test1");
    expect(read?.mission.items[0]?.prompt).toBe(prompt);
    expect(fake.requests.slice(from).filter((r) => r.method === "GET" && r.path.includes("/git/blobs/"))).toHaveLength(1);
  });

  it("reads a mission stored whole as mission.json (before the records), and its next save writes the records", async () => {
    const github = t.github;
    const refPrefix = freshPrefix();
    const writer = createGitHubMissionStore({ github, refPrefix: freshPrefix() });
    await applyEvent(writer, "m-test1", requested());
    const { mission } = await applyEvent(writer, "m-test1", planned([item("a"), item("b")]));
    const tree = await github.createTree({ entries: [{ path: "mission.json", mode: "100644", content: `${JSON.stringify(mission, null, 2)}\n` }] });
    await github.createRef({ ref: `${refPrefix}m-test1`, sha: await github.createCommit({ message: "m-test1: old layout", tree, parents: [] }) });
    const store = createGitHubMissionStore({ github, refPrefix });
    expect((await store.load("m-test1"))?.mission).toEqual(mission);
    await applyEvent(store, "m-test1", { type: "attempt_started", at: at(2), item: "b", attempt: 1, base: "b".repeat(40), runner: "runner-b" });
    const head = (await github.getRef(`${refPrefix}m-test1`)) ?? "";
    expect(await github.readFile({ path: "mission.json", ref: head })).toBeNull();
    const reread = await createGitHubMissionStore({ github: t.makeGitHub(), refPrefix }).load("m-test1");
    expect(reread?.mission.items.map((i) => i.attempts.at(-1)?.runner ?? null)).toEqual([null, "runner-b"]);
  });

  it("refuses a state branch that holds no mission, naming the ref", async () => {
    const github = t.github;
    const refPrefix = freshPrefix();
    const tree = await github.createTree({ entries: [{ path: "notes.txt", mode: "100644", content: "not a mission\n" }] });
    await github.createRef({ ref: `${refPrefix}m-test1`, sha: await github.createCommit({ message: "stray", tree, parents: [] }) });
    const loaded = createGitHubMissionStore({ github, refPrefix }).load("m-test1");
    await expect(loaded).rejects.toThrow(CorruptMissionError);
    await expect(loaded).rejects.toThrow(`${refPrefix}m-test1`);
  });
});
