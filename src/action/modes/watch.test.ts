import { describe, expect, it } from "vitest";
import { GitHubError, OutcomeUnknownError } from "../../github/index.ts";
import type { DispatchInputs } from "../../github/index.ts";
import type { GitHubPort, WorkflowJob } from "../../github/index.ts";
import type { DispatchInput } from "../deps.ts";
import { STARVED_MS, WATCH_BASE_POLL_MS, WATCH_BUDGET_PER_HOUR, watchMode, watchPollMs } from "./watch.ts";

const MISSION = "m-1a2b3c4d";
const WORK: DispatchInput = {
  phase: "work",
  items: [
    { item: "fast", attempt: 1 },
    { item: "slow", attempt: 1 },
    { item: "mid", attempt: 2 },
  ],
};

function job(name: string, status: "queued" | "in_progress" | "completed", conclusion: string | null = null): WorkflowJob {
  return {
    id: name.length,
    name: `${name.includes(" ") ? "" : `work ${MISSION} `}${name}`,
    status,
    conclusion,
    url: "",
    startedAt: null,
    completedAt: null,
    runAttempt: 1,
    steps: [],
  };
}

/** A port that answers each read of the jobs with the next list of `reads` (the last one again when they run out). */
function world(reads: readonly (WorkflowJob[] | Error)[], dispatchFails: (Error | null)[] = [], integrate: { runIds?: number[]; statuses?: string[] } = {}) {
  const dispatched: DispatchInputs[] = [];
  const runIds = [...(integrate.runIds ?? [])];
  const runStatuses = [...(integrate.statuses ?? [])];
  const checked: number[] = [];
  const lines: string[] = [];
  let read = 0;
  const github = {
    listJobs: async ({ runId }: { runId: number }) => {
      expect(runId).toBe(77);
      const answer = reads[Math.min(read++, reads.length - 1)] as WorkflowJob[] | Error;
      if (answer instanceof Error) throw answer;
      return answer;
    },
    dispatchWorkflow: async ({ inputs }: { inputs: DispatchInputs }) => {
      const failure = dispatchFails.shift();
      if (failure) throw failure;
      dispatched.push(inputs);
      return { runId: runIds.shift() ?? null, runUrl: null };
    },
    getRun: async ({ runId }: { runId: number }) => {
      checked.push(runId);
      return { id: runId, status: runStatuses.shift() ?? "completed", conclusion: null, url: "", headSha: "", attempt: 1 };
    },
  } as unknown as GitHubPort;
  const log = { info: (m: string) => lines.push(m), warning: (m: string) => lines.push(`warning: ${m}`) } as never;
  const sleeps: number[] = [];
  const run = (input: Partial<{ dispatch: DispatchInput; runId: number | null }> = {}) =>
    watchMode(
      { github, workflow: "naruto.yml", ref: "main", log },
      { mission: MISSION, runId: 77, dispatch: WORK, ...input },
      { pollMs: 5, sleep: async (ms) => void sleeps.push(ms) },
    );
  return { run, dispatched, lines, reads: () => read, sleeps, checked };
}

const INTEGRATE = { mission: MISSION, phase: "integrate", run: "77" };

describe("the watch job", () => {
  it("dispatches an integrate run when legs end while others work, and stops without one once all ended", async () => {
    const w = world([
      [job("fast#1", "in_progress"), job("slow#1", "in_progress")],
      [job("fast#1", "completed", "success"), job("slow#1", "in_progress"), job("mid#2", "in_progress")],
      [job("fast#1", "completed", "success"), job("slow#1", "in_progress"), job("mid#2", "in_progress")],
      [job("fast#1", "completed", "success"), job("slow#1", "in_progress"), job("mid#2", "completed", "failure")],
      [job("fast#1", "completed", "success"), job("slow#1", "completed", "success"), job("mid#2", "completed", "failure")],
    ]);
    const outcome = await w.run();
    expect(w.dispatched).toEqual([INTEGRATE, INTEGRATE]);
    expect(outcome).toEqual({ dispatched: 2, reason: "all 3 legs ended: the run's queue job integrates what no integrate run took" });
    expect(w.reads()).toBe(5);
    expect(w.sleeps).toEqual([5, 5, 5, 5]);
    expect(w.lines[0]).toBe(`watch ${MISSION}: fast#1 ended; integrate run dispatched for the legs of run 77 ended so far (2 still working)`);
  });

  it("keeps one integrate run of its run in flight: a leg that ends meanwhile waits for it to finish (the mission's publish jobs queue in one concurrency group of at most 100)", async () => {
    const legs = ["fast#1", "mid#2", "slow#1"];
    const ended = (n: number) => legs.map((l, i) => job(l, i < n ? "completed" : "in_progress", i < n ? "success" : null));
    const w = world([ended(1), ended(2), ended(2), ended(2), ended(3)], [], { runIds: [901, 902], statuses: ["queued", "in_progress", "completed"] });
    const outcome = await w.run();
    // Read 1: fast ended, dispatched (run 901). Reads 2 and 3: mid ended, 901 still queued then in
    // progress: nothing dispatched. Read 4: 901 completed: one for mid. Read 5: all ended.
    expect(w.dispatched).toEqual([INTEGRATE, INTEGRATE]);
    expect(w.checked).toEqual([901, 901, 901]);
    expect(outcome.dispatched).toBe(2);
    expect(w.lines.filter((l) => l.includes("waits for integrate run 901"))).toHaveLength(2);
  });

  it("dispatches nothing for a cancelled leg, which left no artifact", async () => {
    const w = world([
      [job("fast#1", "completed", "cancelled"), job("slow#1", "in_progress"), job("mid#2", "in_progress")],
      [job("fast#1", "completed", "cancelled"), job("slow#1", "completed", "success"), job("mid#2", "completed", "success")],
    ]);
    await w.run();
    expect(w.dispatched).toEqual([]);
  });

  it("stops once the run's queue job is listed: it needs every leg", async () => {
    const w = world([[job("fast#1", "completed", "success"), job(`queue ${MISSION}`, "in_progress")]]);
    const outcome = await w.run();
    expect(w.dispatched).toEqual([]);
    expect(outcome.dispatched).toBe(0);
  });

  it("reads nothing for a run of one leg (its queue job integrates it as soon as it ends) or a run that is no work run", async () => {
    const one = world([]);
    expect((await one.run({ dispatch: { phase: "work", items: [{ item: "fast", attempt: 1 }] } })).reason).toMatch(/1 leg: the run's queue job/);
    expect((await one.run({ dispatch: { phase: "integrate", items: [], run: 5 } })).reason).toBe("not a work run: nothing to watch");
    expect(one.reads()).toBe(0);
    await expect(one.run({ runId: null })).rejects.toThrow(/GITHUB_RUN_ID is not set/);
  });

  it("keeps watching after a dispatch whose outcome is unknown, and leaves the rest to the queue job when GitHub refuses one", async () => {
    const lists = [
      [job("fast#1", "completed", "success"), job("slow#1", "in_progress"), job("mid#2", "in_progress")],
      [job("fast#1", "completed", "success"), job("slow#1", "completed", "success"), job("mid#2", "in_progress")],
      [job("fast#1", "completed", "success"), job("slow#1", "completed", "success"), job("mid#2", "completed", "success")],
    ];
    const unknown = world(lists, [new OutcomeUnknownError({ operation: "dispatch", status: null, message: "no answer" })]);
    await expect(unknown.run()).resolves.toMatchObject({ dispatched: 1 });
    expect(unknown.lines.some((l) => l.startsWith(`warning: watch ${MISSION}: the integrate run for fast#1 may not have started`))).toBe(true);

    const refused = world(lists, [new GitHubError({ operation: "dispatch", status: 422, message: 'Unexpected inputs provided: ["run"]' })]);
    const outcome = await refused.run();
    expect(outcome.dispatched).toBe(0);
    expect(outcome.reason).toMatch(/^no integrate run \(.*Unexpected inputs.*\): the run's queue job integrates the legs once all ended$/);
    expect(refused.reads()).toBe(1);
  });

  it("survives failed reads, and gives up after five in a row", async () => {
    const flaky = world([
      new Error("502"),
      [job("fast#1", "completed", "success"), job("slow#1", "completed", "success"), job("mid#2", "completed", "success")],
    ]);
    await expect(flaky.run()).resolves.toMatchObject({ dispatched: 0 });
    const down = world([new Error("Bad credentials")]);
    expect((await down.run()).reason).toBe("5 reads failed in a row: the run's queue job integrates the legs once all ended");
    expect(down.reads()).toBe(5);
  });
});

describe("the watch job's budget", () => {
  /** Requests an hour at GitHub's default interval when every read of every page is a full answer (legs moving). */
  const perHour = (legs: number) => Math.ceil((legs + 5) / 100) * (3_600_000 / watchPollMs(WATCH_BASE_POLL_MS, legs));

  it.each([16, 64, 95, 96, 200, 256])("reads a run of %i legs within a third of GITHUB_TOKEN's 1,000 requests an hour", (legs) => {
    expect(perHour(legs)).toBeLessThanOrEqual(WATCH_BUDGET_PER_HOUR);
    expect(WATCH_BUDGET_PER_HOUR).toBeLessThan(1000 / 3);
  });

  it("reads one page at its interval, and more pages less often", () => {
    expect(watchPollMs(300, 64)).toBe(300);
    expect(watchPollMs(15_000, 256)).toBe(36_000);
  });

  it("waits between reads as long as its run's pages need", async () => {
    const legs = Array.from({ length: 256 }, (_, i) => ({ item: `i${i}`, attempt: 1 }));
    const w = world([
      [job("i0#1", "completed", "success"), job("i1#1", "in_progress")],
      [job("i0#1", "completed", "success"), job(`queue ${MISSION}`, "queued")],
    ]);
    await w.run({ dispatch: { phase: "work", items: legs } });
    expect(w.sleeps).toEqual([12]);
  });

  it("gives its runner back when no leg has one while some wait for one", async () => {
    const waiting = [job("fast#1", "queued"), job("slow#1", "queued"), job("mid#2", "queued")];
    const w = world([waiting]);
    const outcome = await w.run();
    expect(outcome.reason).toMatch(/^3 leg\(s\) waited \d+ s for a runner while none worked: this job gives its runner back/);
    expect(w.reads()).toBe(Math.ceil(STARVED_MS / 5));
    // Any leg under way resets the wait.
    const busy = world([
      [job("fast#1", "in_progress"), job("slow#1", "queued"), job("mid#2", "queued")],
      [job("fast#1", "completed", "success"), job("slow#1", "completed", "success"), job("mid#2", "completed", "success")],
    ]);
    expect((await busy.run()).reason).toMatch(/^all 3 legs ended/);
  });
});
