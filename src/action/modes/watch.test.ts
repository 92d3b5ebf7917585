import { describe, expect, it } from "vitest";
import { GitHubError, OutcomeUnknownError } from "../../github/index.ts";
import type { DispatchInputs } from "../../github/index.ts";
import type { GitHubPort, WorkflowJob } from "../../github/index.ts";
import type { DispatchInput } from "../deps.ts";
import { watchMode } from "./watch.ts";

const MISSION = "m-1a2b3c4d";
const WORK: DispatchInput = { phase: "work", items: [{ item: "fast", attempt: 1 }, { item: "slow", attempt: 1 }, { item: "mid", attempt: 2 }] };

function job(name: string, status: "in_progress" | "completed", conclusion: string | null = null): WorkflowJob {
  return { id: name.length, name: `${name.includes(" ") ? "" : `work ${MISSION} `}${name}`, status, conclusion, url: "", startedAt: null, completedAt: null };
}

/** A port that answers each read of the jobs with the next list of `reads` (the last one again when they run out). */
function world(reads: readonly (WorkflowJob[] | Error)[], dispatchFails: (Error | null)[] = []) {
  const dispatched: DispatchInputs[] = [];
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
      return { runId: null, runUrl: null };
    },
  } as unknown as GitHubPort;
  const log = { info: (m: string) => lines.push(m), warning: (m: string) => lines.push(`warning: ${m}`) } as never;
  const sleeps: number[] = [];
  const run = (input: Partial<{ dispatch: DispatchInput; runId: number | null }> = {}) =>
    watchMode({ github, workflow: "naruto.yml", ref: "main", log }, { mission: MISSION, runId: 77, dispatch: WORK, ...input }, { pollMs: 5, sleep: async (ms) => void sleeps.push(ms) });
  return { run, dispatched, lines, reads: () => read, sleeps };
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

    const refused = world(lists, [new GitHubError({ operation: "dispatch", status: 422, message: "Unexpected inputs provided: [\"run\"]" })]);
    const outcome = await refused.run();
    expect(outcome.dispatched).toBe(0);
    expect(outcome.reason).toMatch(/^no integrate run \(.*Unexpected inputs.*\): the run's queue job integrates the legs once all ended$/);
    expect(refused.reads()).toBe(1);
  });

  it("survives failed reads, and gives up after five in a row", async () => {
    const flaky = world([new Error("502"), [job("fast#1", "completed", "success"), job("slow#1", "completed", "success"), job("mid#2", "completed", "success")]]);
    await expect(flaky.run()).resolves.toMatchObject({ dispatched: 0 });
    const down = world([new Error("Bad credentials")]);
    expect((await down.run()).reason).toBe("5 reads failed in a row: the run's queue job integrates the legs once all ended");
    expect(down.reads()).toBe(5);
  });
});
