/**
 * The adapter under GitHub's failures, injected by the fake GitHub: 5xx answers (before or after
 * the request took effect), rate limits with `retry-after`, slow answers, 409 and 422. Fake
 * only: real GitHub cannot be made to fail on demand. No assertion is on wall-clock time.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GitHubError, markerFor, NotFastForwardError, OutcomeUnknownError } from "../../src/github/index.ts";
import type { RecordedRequest } from "../support/fake-github/index.ts";
import { startTarget, type PortTarget } from "./target.ts";

let t: PortTarget;
let base: string;
const fake = () => {
  if (t.fake === null) throw new Error("fault tests need the fake GitHub");
  return t.fake;
};

beforeAll(async () => {
  t = await startTarget({}); // always the fake
  base = (await t.github.getRef("refs/heads/main")) ?? "";
});
afterAll(async () => {
  fake().assertNoViolations();
  await t.close();
});

/** Counts the requests made while `run` ran that match the method and path. */
async function counting<T>(method: string, path: RegExp, run: () => Promise<T>): Promise<{ result: T; sent: number }> {
  const from = fake().requests.length;
  const result = await run();
  const sent = fake()
    .requests.slice(from)
    .filter((r: RecordedRequest) => r.method === method && path.test(r.path)).length;
  return { result, sent };
}

const COMMENTS = /^\/repos\/acme\/demo\/issues\/1\/comments$/;
const commentsWith = (marker: string) => [...fake().repo("acme/demo").comments.values()].filter((c) => c.body.startsWith(marker));
let n = 0;
const uniqueMarker = () => markerFor(`fault:${++n}`);

describe("5xx answers", () => {
  it("retries a GET after a 5xx", async () => {
    fake().faults.push({ method: "GET", path: /\/git\/ref\/heads%2Fmain$/, status: 502 });
    const { result, sent } = await counting("GET", /\/git\/ref\//, () => t.github.getRef("refs/heads/main"));
    expect(result).toBe(base);
    expect(sent).toBe(2);
  });

  it("gives up on a GET after the retries allowed, with a typed error carrying the status", async () => {
    fake().faults.push({ method: "GET", path: /\/git\/ref\/heads%2Fmain$/, status: 503, times: 10 });
    const { result, sent } = await counting("GET", /\/git\/ref\//, () => t.github.getRef("refs/heads/main").catch((e: unknown) => e));
    expect(result).toBeInstanceOf(GitHubError);
    expect((result as GitHubError).status).toBe(503);
    expect(sent).toBe(4); // the first try and 3 retries
    fake().faults.length = 0;
  });

  it("does not create a second comment when the answer to the first was a 5xx", async () => {
    const marker = uniqueMarker();
    fake().faults.push({ method: "POST", path: COMMENTS, status: 502, after: true });
    const { result, sent } = await counting("POST", COMMENTS, () => t.github.upsertComment({ issue: 1, marker, body: "hello" }));
    expect(sent).toBe(1);
    expect(commentsWith(marker).map((c) => c.id)).toEqual([result.id]);
  });

  it("creates the comment again when a 5xx came before it was created", async () => {
    const marker = uniqueMarker();
    fake().faults.push({ method: "POST", path: COMMENTS, status: 500 });
    const { result, sent } = await counting("POST", COMMENTS, () => t.github.upsertComment({ issue: 1, marker, body: "hello" }));
    expect(sent).toBe(2);
    expect(commentsWith(marker).map((c) => c.id)).toEqual([result.id]);
  });

  it("stops with OutcomeUnknownError when every attempt fails, having created nothing twice", async () => {
    const marker = uniqueMarker();
    fake().faults.push({ method: "POST", path: COMMENTS, status: 503, times: 10 });
    const { result, sent } = await counting("POST", COMMENTS, () => t.github.upsertComment({ issue: 1, marker, body: "hello" }).catch((e: unknown) => e));
    expect(result).toBeInstanceOf(OutcomeUnknownError);
    expect(sent).toBe(4);
    expect(commentsWith(marker)).toEqual([]);
    fake().faults.length = 0;
  });

  it("does not open a second pull request when the answer to the first was a 5xx", async () => {
    const head = "fault-pr";
    await t.github.createRef({ ref: `refs/heads/${head}`, sha: await commitOn(base, "pr.txt") });
    fake().faults.push({ method: "POST", path: /\/pulls$/, status: 502, after: true });
    const { result, sent } = await counting("POST", /\/pulls$/, () => t.github.createPullRequest({ head, base: "main", title: "queue", body: "b" }));
    expect(sent).toBe(1);
    expect([...fake().repo("acme/demo").pulls.values()].filter((p) => p.headRef === head).map((p) => p.number)).toEqual([result.number]);
  });

  it("creates a ref once when the answer to the create was a 5xx", async () => {
    const ref = "refs/heads/fault-create";
    fake().faults.push({ method: "POST", path: /\/git\/refs$/, status: 502, after: true });
    const { sent } = await counting("POST", /\/git\/refs$/, () => t.github.createRef({ ref, sha: base }));
    expect(sent).toBe(1);
    expect(await t.github.getRef(ref)).toBe(base);
  });

  it("settles a fast-forward whose answer was lost by reading the ref, without moving it again", async () => {
    const ref = "refs/heads/fault-move";
    await t.github.createRef({ ref, sha: base });
    const next = await commitOn(base, "move.txt");
    fake().faults.push({ method: "PATCH", path: /\/git\/refs\/heads%2Ffault-move$/, status: 502, after: true });
    const { sent } = await counting("PATCH", /\/git\/refs\//, () => t.github.updateRef({ ref, sha: next }));
    expect(sent).toBe(1);
    expect(await t.github.getRef(ref)).toBe(next);
  });

  it("never sends a dispatch twice: a 5xx answer is an unknown outcome for the sweep to settle", async () => {
    const before = fake().dispatches.length;
    fake().faults.push({ method: "POST", path: /\/dispatches$/, status: 502, after: true });
    const { result, sent } = await counting("POST", /\/dispatches$/, () =>
      t.github.dispatchWorkflow({ workflow: "naruto.yml", ref: "main", inputs: { mission: "m-1" } }).catch((e: unknown) => e),
    );
    expect(result).toBeInstanceOf(OutcomeUnknownError);
    expect(sent).toBe(1);
    expect(fake().dispatches.length).toBe(before + 1);
  });
});

describe("409 and 422", () => {
  it("never retries a 422: a non-fast-forward is one request and a NotFastForwardError", async () => {
    const ref = "refs/heads/fault-ff";
    await t.github.createRef({ ref, sha: await commitOn(base, "a.txt") });
    const side = await commitOn(base, "b.txt");
    const { result, sent } = await counting("PATCH", /\/git\/refs\//, () => t.github.updateRef({ ref, sha: side }).catch((e: unknown) => e));
    expect(result).toBeInstanceOf(NotFastForwardError);
    expect((result as GitHubError).status).toBe(422);
    expect(sent).toBe(1);
  });

  it("never retries a 409: cancelling a finished run is one request", async () => {
    const { runId } = await t.github.dispatchWorkflow({ workflow: "naruto.yml", ref: "main", inputs: { mission: "m-2" } });
    if (runId === null) throw new Error("the fake returns run details");
    fake().setRunStatus(runId, { status: "completed", conclusion: "success" });
    const { result, sent } = await counting("POST", /\/cancel$/, () => t.github.cancelRun({ runId }));
    expect(result).toBe(false);
    expect(sent).toBe(1);
  });
});

describe("rate limits and slow answers", () => {
  it.each([403, 429] as const)("waits out a secondary rate limit (%i with retry-after) and retries", async (status) => {
    fake().faults.push({ method: "GET", path: /\/git\/ref\/heads%2Fmain$/, secondaryRateLimit: { status, retryAfterSeconds: 1 } });
    const { result, sent } = await counting("GET", /\/git\/ref\//, () => t.github.getRef("refs/heads/main"));
    expect(result).toBe(base);
    expect(sent).toBe(2);
  });

  it("retries a creating request held back by a secondary rate limit, creating it once", async () => {
    const marker = uniqueMarker();
    fake().faults.push({ method: "POST", path: COMMENTS, secondaryRateLimit: { status: 403, retryAfterSeconds: 1 } });
    const { sent } = await counting("POST", COMMENTS, () => t.github.upsertComment({ issue: 1, marker, body: "later" }));
    expect(sent).toBe(2);
    expect(commentsWith(marker)).toHaveLength(1);
  });

  it("waits for the primary rate limit to reset", async () => {
    fake().faults.push({ method: "GET", path: /\/git\/ref\/heads%2Fmain$/, primaryRateLimit: { resetInSeconds: 1 } });
    const { result, sent } = await counting("GET", /\/git\/ref\//, () => t.github.getRef("refs/heads/main"));
    expect(result).toBe(base);
    expect(sent).toBe(2);
  });

  it("gives up after the rate-limit waits allowed, with the 403", async () => {
    const github = t.makeGitHub({ rateLimit: { retries: 1 } });
    fake().faults.push({ method: "GET", path: /\/git\/ref\/heads%2Fmain$/, secondaryRateLimit: { status: 403, retryAfterSeconds: 1 }, times: 5 });
    const { result, sent } = await counting("GET", /\/git\/ref\//, () => github.getRef("refs/heads/main").catch((e: unknown) => e));
    expect((result as GitHubError).status).toBe(403);
    expect(sent).toBe(2);
    fake().faults.length = 0;
  });

  it("abandons an attempt that takes longer than the request timeout and retries it", async () => {
    // A fake of its own, closed before the slow answer is due: the fake reports a request
    // whose client went away during the delay as a crash of its own.
    const own = await startTarget({});
    const slow = own.fake;
    if (slow === null) throw new Error("needs the fake");
    try {
      const github = own.makeGitHub({ requestTimeoutMs: 300 });
      slow.faults.push({ method: "GET", path: /\/git\/ref\/heads%2Fmain$/, delayMs: 5000 });
      const from = slow.requests.length;
      expect(await github.getRef("refs/heads/main")).not.toBeNull();
      // The fake records a request once its delay is over: the slow first attempt is still
      // waiting there, so the answer came from the retry.
      expect(slow.requests.slice(from).filter((r) => r.method === "GET" && /\/git\/ref\//.test(r.path))).toHaveLength(1);
      expect(slow.faults).toEqual([]);
      slow.assertNoViolations();
    } finally {
      await own.close();
    }
  });
});

describe("request counts", () => {
  it("finds a marker comment on the first page without reading the rest of a long discussion", async () => {
    const marker = uniqueMarker();
    await t.github.upsertComment({ issue: 1, marker, body: "tracking" });
    for (let i = 0; i < 100; i++) await t.github.upsertComment({ issue: 1, marker: uniqueMarker(), body: `filler ${i}` });
    const { result, sent } = await counting("GET", COMMENTS, () => t.github.findComment({ issue: 1, marker }));
    expect(result?.body).toBe(`${marker}\ntracking`);
    expect(sent).toBe(1);
    // A marker that is nowhere needs every page.
    const { sent: all } = await counting("GET", COMMENTS, () => t.github.findComment({ issue: 1, marker: uniqueMarker() }));
    expect(all).toBe(2);
  });
});

async function commitOn(parent: string, path: string): Promise<string> {
  const { tree } = await t.github.getCommit(parent);
  const blob = await t.github.createBlob(`${path}\n`);
  return t.github.createCommit({
    message: path,
    tree: await t.github.createTree({ base: tree, entries: [{ path, mode: "100644", sha: blob }] }),
    parents: [parent],
  });
}
