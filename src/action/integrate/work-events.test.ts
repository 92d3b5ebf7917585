import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultConfig } from "../../config/index.ts";
import type { Git } from "../../git/index.ts";
import type { MissionEvent } from "../../mission/index.ts";
import { at, finished, item, missionAfter, planned, requested } from "../../../test/support/mission-builders.ts";
import { recordingLog } from "../log.ts";
import type { WorkResult } from "../artifacts.ts";
import { workEvents } from "./work-events.ts";

const started = (attempt: number, run: number): MissionEvent => ({
  type: "attempt_started",
  at: at(2 + attempt),
  item: "x",
  attempt,
  base: "b".repeat(40),
  runner: `https://github.test/acme/demo/actions/runs/${run}`,
});
/** x#1 ran in run 40 and failed; x#2 runs in run 41. */
const mission = missionAfter([requested(), planned([item("x")]), started(1, 40), finished("x", 1, { kind: "failed", reason: "boom" }, 4), started(2, 41)]);
const leg = (attempt: number, run: number) => ({ runId: run, runAttempt: 1, name: `work ${mission.id} x#${attempt}` });
const noGit = (() => Promise.reject(new Error("no git: every case here is decided before git"))) as unknown as Git;

function result(attempt: number, job: { runId: number; runAttempt: number; name: string } | null): WorkResult {
  return {
    schema: "naruto.work-result/v1",
    mission: mission.id,
    item: "x",
    attempt,
    outcome: { kind: "no_changes" },
    commit: null,
    base: null,
    job: job === null ? null : { run_id: job.runId, run_attempt: job.runAttempt, name: job.name },
  };
}

describe("workEvents: a leg's result is bound to its leg (issue 32)", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "naruto-work-events-"));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  async function outcomeOf(name: string, written: WorkResult, entry: { item: string; attempt: number; job?: ReturnType<typeof leg> }) {
    const folder = join(dir, `${name}-${Math.random().toString(16).slice(2)}`);
    await mkdir(join(folder, name), { recursive: true });
    await writeFile(join(folder, name, "result.json"), JSON.stringify(written));
    const { events, pushes } = await workEvents({
      folder,
      mission,
      config: defaultConfig(),
      git: noGit,
      repoDir: dir,
      queueRef: `refs/heads/naruto/${mission.id}`,
      entries: [entry],
      at: at(9),
      runUrl: null,
      log: recordingLog(),
    });
    expect(pushes).toEqual([]);
    return events.map((e) => (e.type === "attempt_finished" ? [e.attempt, e.outcome] : e.type));
  }

  it("takes a result that names its own attempt and its own leg's job", async () => {
    expect(await outcomeOf("naruto-work-x-2", result(2, leg(2, 41)), { item: "x", attempt: 2, job: leg(2, 41) })).toEqual([[2, { kind: "no_changes" }]]);
  });

  it("refuses a result that names another attempt than the artifact's name (x#1's result replayed as x#2's)", async () => {
    expect(await outcomeOf("naruto-work-x-2", result(1, leg(1, 40)), { item: "x", attempt: 2, job: leg(2, 41) })).toEqual([
      [2, { kind: "failed", reason: `the work job's result was refused: it names ${mission.id} x#1` }],
    ]);
  });

  it("refuses a result whose job is not the leg's: another attempt's job, another run, another run attempt, or none", async () => {
    for (const [job, named] of [
      [leg(3, 41), `job "work ${mission.id} x#3" of run 41 (attempt 1)`],
      [leg(2, 52), `job "work ${mission.id} x#2" of run 52 (attempt 1)`],
      [{ ...leg(2, 41), runAttempt: 2 }, `job "work ${mission.id} x#2" of run 41 (attempt 2)`],
      [null, "no job"],
    ] as const) {
      expect(await outcomeOf("naruto-work-x-2", result(2, job), { item: "x", attempt: 2, job: leg(2, 41) })).toEqual([
        [2, { kind: "failed", reason: `the work job's result was refused: it names ${named}, not its leg "work ${mission.id} x#2" of run 41 (attempt 1)` }],
      ]);
    }
  });

  it("ignores a later attempt's artifact under the name of an earlier attempt, which is no longer in flight", async () => {
    expect(await outcomeOf("naruto-work-x-1", result(1, leg(1, 41)), { item: "x", attempt: 1, job: leg(1, 41) })).toEqual([]);
  });
});
