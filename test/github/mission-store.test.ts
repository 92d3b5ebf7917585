/**
 * The mission store on GitHub against the fake GitHub over real HTTP: the store contract every
 * adapter keeps (test/support/store-conformance.ts), then 50 separate clients saving different
 * events to one mission while the fake loses some answers (5xx after the write took effect) and
 * fails others (5xx before), and racing writers get GitHub's real 422 "not a fast forward".
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createGitHub, createGitHubMissionStore, GITHUB_STATE_REF_PREFIX, githubSaveBackoff, type CreateGitHubOptions } from "../../src/github/index.ts";
import type { MissionEvent } from "../../src/mission/events.ts";
import { applyEvent } from "../../src/mission/store.ts";
import { at, item, planned, requested } from "../support/mission-builders.ts";
import { startFakeGitHub, type FakeGitHub } from "../support/fake-github/index.ts";
import { describeStoreConformance } from "../support/store-conformance.ts";

// 50 racing writers over HTTP to a fake that runs git for every request: minutes on a busy
// machine, never an assertion on time.
vi.setConfig({ testTimeout: 300_000 });

let fake: FakeGitHub;
let token: string;
let repos = 0;

beforeAll(async () => {
  fake = await startFakeGitHub();
  await fake.createRepo({ owner: "acme", name: "seed", files: { "README.md": "seed\n" } });
  token = fake.issueAppToken({ owner: "acme" }).token;
});
afterAll(async () => {
  fake.assertNoViolations();
  await fake.close();
});

const FAST = { retry: { retries: 3, baseDelayMs: 5 }, throttle: { writeIntervalMs: 0, notificationIntervalMs: 0 }, sleep: () => Promise.resolve() } as const;

/** A fresh repository (with a commit on main, as a real one has) and a client for it. */
async function freshRepo(): Promise<{ name: string; client: (options?: Partial<CreateGitHubOptions>) => ReturnType<typeof createGitHub> }> {
  const name = `store-${++repos}`;
  await fake.createRepo({ owner: "acme", name, files: { "README.md": "code\n" } });
  return { name, client: (options = {}) => createGitHub({ token, repo: { owner: "acme", repo: name }, baseUrl: fake.url, userAgent: "naruto-tests", ...FAST, ...options }) };
}

describeStoreConformance(
  "GitHub (fake)",
  async () => {
    const { client } = await freshRepo();
    return createGitHubMissionStore({ github: client() });
  },
  { concurrent: 50 },
);

describe("GitHub mission store", () => {
  it("keeps each mission on its own branch under naruto-state/, with the history of its saves", async () => {
    const { client } = await freshRepo();
    const github = client();
    const store = createGitHubMissionStore({ github });
    await applyEvent(store, "m-test1", requested());
    await applyEvent(store, "m-test1", planned([item("a")]));
    const head = await github.getRef(`${GITHUB_STATE_REF_PREFIX}m-test1`);
    expect(head).not.toBeNull();
    const commit = await github.getCommit(head ?? "");
    expect(commit.message).toMatch(/^m-test1: \w+ \(seq 2\)\n\nNaruto-Save: \S+$/);
    const parent = await github.getCommit(commit.parents[0] ?? "");
    expect(parent.parents).toEqual([]); // the first save is a root: no history shared with code
    expect(JSON.parse((await github.readFile({ path: "mission.json", ref: parent.sha })) ?? "").seq).toBe(1);
    // The code branch is untouched.
    expect(await github.readFile({ path: "mission.json", ref: "main" })).toBeNull();
  });

  it("lets only one of two writers win with the same mission from the same version (a redelivered event)", async () => {
    const { client } = await freshRepo();
    const [a, b] = [createGitHubMissionStore({ github: client() }), createGitHubMissionStore({ github: client() })];
    await applyEvent(a, "m-test1", requested());
    const [seenA, seenB] = [await a.load("m-test1"), await b.load("m-test1")];
    if (seenA === null || seenB === null) throw new Error("saved mission missing");
    expect(seenB.version).toBe(seenA.version);
    // Both compute the same next mission; without a unique commit both moves would be no-ops that "win".
    const results = await Promise.all([a.save(seenA.mission, seenA.version), b.save(seenB.mission, seenB.version)]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
  });

  it("loses no update when 50 separate clients save different events while GitHub fails some requests", async () => {
    const { client } = await freshRepo();
    const store = createGitHubMissionStore({ github: client() });
    const ids = Array.from({ length: 50 }, (_, i) => `i${i}`);
    await applyEvent(store, "m-test1", requested({ max_parallel: 50 }));
    await applyEvent(store, "m-test1", planned(ids.map((id) => item(id))));
    const stateRef = /\/git\/refs\/heads%2Fnaruto-state%2Fm-test1$/;
    fake.faults.push(
      { method: "PATCH", path: stateRef, status: 502, after: true, times: 5 }, // the move happened, its answer was lost
      { method: "PATCH", path: stateRef, status: 503, times: 5 }, // the move did not happen
      { method: "POST", path: /\/git\/commits$/, status: 500, times: 5 },
      { method: "GET", path: /\/contents\/mission\.json$/, status: 502, times: 5 },
    );
    const from = fake.requests.length;
    const events: MissionEvent[] = ids.map((id) => ({ type: "attempt_started", at: at(2), item: id, attempt: 1, base: "b".repeat(40), runner: `runner-${id}` }));
    // A store per writer, as in separate jobs: nothing is coordinated in memory, only on GitHub.
    await Promise.all(events.map((e) => applyEvent(createGitHubMissionStore({ github: client() }), "m-test1", e, { attempts: 200, backoff: githubSaveBackoff })));
    const final = (await store.load("m-test1"))?.mission;
    expect(final?.items.map((i) => i.attempts.map((a) => a.runner))).toEqual(ids.map((id) => [`runner-${id}`]));
    expect(final?.seq).toBe(2 + 50);
    const sent = fake.requests.slice(from);
    // Racing writers really met GitHub's 422, and the injected failures were all used.
    expect(sent.filter((r) => r.method === "PATCH" && r.status === 422).length).toBeGreaterThan(0);
    expect(fake.faults).toEqual([]);
  });
});
