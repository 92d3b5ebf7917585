/**
 * The watch job's requests against the `GITHUB_TOKEN`'s 1,000 an hour per repository (issue 33):
 * the real watch (`watchMode`, through the real Octokit adapter with its ETag cache, as main.ts
 * builds it) reads a work run of the fake GitHub whose legs move as the Actions simulator's do:
 * each leg `queued` until one of the account's runners is free (a Free account's 20, the watch
 * holding one of them), then `in_progress` with its steps (`Set up job`, the template's work job
 * steps, `Complete job`) each `in_progress` then `completed`, then `completed`. Time is virtual:
 * the watch's sleeps move the legs and the fake's clock on, so an hour of a run takes seconds.
 *
 * Counted: every request of the watch's token the fake answered, less its 304s (GitHub does not
 * count a conditional request answered 304). Reads of the jobs list (a page of 100 each) and the
 * integrate runs' dispatches both count. The naive way beside it, on the same legs: read every
 * page every 15 s (the watch's interval before its budget), dispatch as the watch does. An
 * integrate run the watch dispatched is shown `in_progress` 10 s later and `completed` 2 minutes
 * after its dispatch (its queue and publish jobs; they are not run here).
 */
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import type { DispatchInput } from "../src/action/deps.ts";
import { recordingLog } from "../src/action/log.ts";
import { WATCH_BASE_POLL_MS, watchMode } from "../src/action/modes/watch.ts";
import { createEtagCache, createGitHub, type GitHubPort } from "../src/github/index.ts";
import { integrateRunInputs, workLegName } from "../src/github-driver/index.ts";
import { type FakeGitHub, startFakeGitHub } from "../test/support/fake-github/index.ts";
import { seededRandom } from "../test/support/seeded-random.ts";

const MISSION = "m-0b5e7ca7";
const QUOTA = 20;
const HOUR = 3_600_000;
/** How long an integrate run takes, from its dispatch to its publish job's end. */
const INTEGRATE_MS = 120_000;

export interface WatchMeasure {
  readonly legs: number;
  /** Virtual minutes from the first read to the watch's end. */
  readonly minutes: number;
  readonly requests: number;
  readonly notModified: number;
  readonly dispatches: number;
  /** Reads of an integrate run's state (whether the last one finished). */
  readonly checks: number;
  /** Counted requests (all but the 304s) per hour, over the whole run. */
  readonly perHour: number;
  /** The most counted requests in any hour of the run (the limit is an hour's). */
  readonly peakHour: number;
  /** Reads of the jobs list whose pages were all 304. */
  readonly quietReads: number;
  readonly reads: number;
}

/** The work job's steps in the template: the runner reports each one. */
function workSteps(): { count: number; agent: number } {
  const template = parse(readFileSync(new URL("../templates/naruto.yml", import.meta.url), "utf8")) as {
    jobs: Record<string, { steps: { name?: string; run?: string }[] }>;
  };
  const steps = template.jobs["work"]?.steps ?? [];
  const agent = steps.findIndex((s) => (s.run ?? "").includes("NARUTO_CLI"));
  if (steps.length === 0 || agent < 0) throw new Error("templates/naruto.yml: no work job with an agent step");
  return { count: steps.length, agent };
}

interface Change {
  readonly at: number;
  readonly apply: () => void;
}

/**
 * The legs of one work run as a timeline of the runner's reports: leg i waits for a runner
 * (first come first served), then runs its steps; the agent's step takes 5 to 15 minutes, the
 * others 2 to 10 seconds.
 */
function legTimeline(fake: FakeGitHub, runId: number, names: readonly string[], seed: number): Change[] {
  const random = seededRandom(seed);
  const { count, agent } = workSteps();
  const free: number[] = Array.from({ length: QUOTA - 1 }, () => 0); // the watch job holds one runner
  const changes: Change[] = [];
  const ids = new Map<string, number>();
  const job = (name: string) => ids.get(name) ?? 0;
  names.forEach((name, i) => {
    ids.set(name, fake.setJob(runId, { name, status: "queued" }));
    free.sort((a, b) => a - b);
    let t = free[0] ?? 0;
    const runner = `runner-${i % QUOTA}`;
    changes.push({ at: t, apply: () => void fake.setJob(runId, { name, status: "in_progress", runner }) });
    const all = [{ name: "Set up job" }, ...Array.from({ length: count }, (_, s) => ({ name: `step ${s + 1}`, agent: s === agent })), { name: "Complete job" }];
    all.forEach((step, n) => {
      const lasts = "agent" in step && step.agent ? 300_000 + random() * 600_000 : 2_000 + random() * 8_000;
      const start = t;
      t += lasts;
      const number = n + 1;
      changes.push({ at: start, apply: () => fake.setJobStep(job(name), { number, name: step.name, status: "in_progress" }) });
      changes.push({ at: t, apply: () => fake.setJobStep(job(name), { number, name: step.name, status: "completed", conclusion: "success" }) });
    });
    changes.push({ at: t, apply: () => void fake.setJob(runId, { name, status: "completed", conclusion: "success" }) });
    free[0] = t;
  });
  return changes.sort((a, b) => a.at - b.at);
}

type Watcher = (input: { github: GitHubPort; runId: number; dispatch: DispatchInput; sleep: (ms: number) => Promise<void> }) => Promise<unknown>;

/** naruto's watch job. */
export const theWatch: Watcher = ({ github, runId, dispatch, sleep }) =>
  watchMode(
    {
      github,
      workflow: "naruto.yml",
      ref: "main",
      log: process.env["NARUTO_BENCH_WATCH_LOG"]
        ? { ...recordingLog(), info: (m: string) => console.log(m), warning: (m: string) => console.log(m) }
        : recordingLog(),
    },
    { mission: MISSION, runId, dispatch },
    { pollMs: WATCH_BASE_POLL_MS, sleep },
  );

/** The naive way: every page every 15 s until every leg ended, an integrate run per read that found legs ended. */
export const naiveWatch: Watcher = async ({ github, runId, dispatch, sleep }) => {
  const legs = new Set(dispatch.items.map((i) => workLegName(MISSION, i.item, i.attempt)));
  const taken = new Set<string>();
  for (;;) {
    const ended = (await github.listJobs({ runId })).filter((j) => legs.has(j.name) && j.status === "completed");
    if (ended.length >= legs.size) return;
    const fresh = ended.filter((j) => !taken.has(j.name));
    if (fresh.length > 0) {
      await github.dispatchWorkflow({ workflow: "naruto.yml", ref: "main", inputs: integrateRunInputs(MISSION, runId) });
      for (const j of fresh) taken.add(j.name);
    }
    await sleep(WATCH_BASE_POLL_MS);
  }
};

export async function measureWatch(input: { legs: number; watcher: Watcher; seed?: number }): Promise<WatchMeasure> {
  const fake = await startFakeGitHub();
  try {
    const template = readFileSync(new URL("../templates/naruto.yml", import.meta.url), "utf8");
    await fake.createRepo({ owner: "acme", name: "demo", files: { "README.md": "# demo\n", ".github/workflows/naruto.yml": template } });
    const token = fake.issueAppToken({ owner: "acme", bot: "github-actions[bot]", workflowToken: true, lifetimeMs: 24 * HOUR }).token;
    const github = createGitHub({
      token,
      repo: { owner: "acme", repo: "demo" },
      baseUrl: fake.apiUrl,
      userAgent: "naruto-bench",
      throttle: { writeIntervalMs: 0, notificationIntervalMs: 0 },
      etags: createEtagCache(),
    });
    const items = Array.from({ length: input.legs }, (_, i) => ({ item: `f${i}`, attempt: 1 }));
    const { runId } = await github.dispatchWorkflow({
      workflow: "naruto.yml",
      ref: "main",
      inputs: { mission: MISSION, phase: "work", items: JSON.stringify(items) },
    });
    if (runId === null) throw new Error("the fake gave no run id for the work run's dispatch");
    fake.setRunStatus(runId, { status: "in_progress" });
    fake.setJob(runId, { name: `plan ${MISSION}`, status: "completed", conclusion: "skipped" });
    fake.setJob(runId, { name: `watch ${MISSION}`, status: "in_progress", runner: "runner-watch" });
    const pending = legTimeline(
      fake,
      runId,
      items.map((i) => workLegName(MISSION, i.item, i.attempt)),
      input.seed ?? 33,
    );
    const since = fake.requests.length;
    // Every request stamped with the virtual time it was made at.
    const stamped: { at: number; status: number; method: string; path: string }[] = [];
    let now = 0;
    let taken = since;
    // An integrate run the watch dispatched runs its queue and publish jobs: done 2 minutes later.
    let dispatchesSeen = fake.dispatches.length;
    const stamp = () => {
      for (const r of fake.requests.slice(taken))
        if (r.kind === "rest" && r.user === "github-actions[bot]") stamped.push({ at: now, status: r.status, method: r.method, path: r.path });
      taken = fake.requests.length;
      for (const d of fake.dispatches.slice(dispatchesSeen)) {
        pending.push({ at: now + 10_000, apply: () => fake.setRunStatus(d.runId, { status: "in_progress" }) });
        pending.push({ at: now + INTEGRATE_MS, apply: () => fake.setRunStatus(d.runId, { status: "completed", conclusion: "success" }) });
      }
      dispatchesSeen = fake.dispatches.length;
      pending.sort((a, b) => a.at - b.at);
    };
    const moveTo = (time: number) => {
      while (pending.length > 0 && (pending[0]?.at ?? Infinity) <= time) {
        const change = pending.shift() as Change;
        fake.advanceClock(Math.max(0, change.at - now));
        now = Math.max(now, change.at);
        change.apply();
      }
      fake.advanceClock(time - now);
      now = time;
    };
    await input.watcher({
      github,
      runId,
      dispatch: { phase: "work", items },
      sleep: async (ms) => {
        stamp();
        moveTo(now + ms);
      },
    });
    stamp();
    const counted = stamped.filter((s) => s.status !== 304);
    const reads = stamped.filter((s) => s.method === "GET" && s.path.endsWith("/jobs"));
    const byRead = new Map<number, number[]>();
    for (const r of reads) byRead.set(r.at, [...(byRead.get(r.at) ?? []), r.status]);
    let peakHour = 0;
    for (const first of counted) peakHour = Math.max(peakHour, counted.filter((c) => c.at >= first.at && c.at < first.at + HOUR).length);
    const hours = Math.max(now, 1) / HOUR;
    return {
      legs: input.legs,
      minutes: now / 60_000,
      requests: stamped.length,
      notModified: stamped.length - counted.length,
      dispatches: stamped.filter((s) => s.method === "POST").length,
      checks: stamped.filter((s) => s.method === "GET" && !s.path.endsWith("/jobs")).length,
      perHour: counted.length / hours,
      peakHour,
      reads: byRead.size,
      quietReads: [...byRead.values()].filter((statuses) => statuses.every((s) => s === 304)).length,
    };
  } finally {
    await fake.close();
  }
}
