/**
 * One seed of the fault campaign (issue 18, `npm run chaos`): a whole mission through the App
 * process, the Actions simulator and the fake GitHub, as the App scenarios run one, while the
 * seeded injector gives requests and deliveries their faults, the App process is killed at
 * seeded moments and started again, dropped deliveries are redelivered later or never, and the
 * workflow's schedule runs the sweep whenever nothing else runs — with the jobs' clock moved on
 * (shifted-clock.mjs), since what the sweep recovers it recovers only after a wait — and now
 * and then while dispatched runs wait, as GitHub's schedule does not wait for them.
 *
 * When the mission settled (ended, and no run left to run) or the rounds ran out, the faults
 * stop and the invariants are read from GitHub's state (invariants.ts).
 */
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { missionIdFor } from "../../../src/github-driver/mission-id.ts";
import { isMissionTerminal } from "../../../src/mission/status.ts";
import { createInjector, DEFAULT_RATES, type ChaosRates, type InjectedFault } from "../../support/chaos/injector.ts";
import { seededRandom } from "../../support/seeded-random.ts";
import { APP_CONFIG, withPlan } from "../support/app-checks.ts";
import { MAINTAINER, REPO, startAppWorld, type AppWorld } from "../support/app-world.ts";
import { REPO_ROOT } from "../support/world.ts";
import { fileOf, violations } from "./invariants.ts";

export interface SeedInput {
  readonly seed: number;
  readonly items: number;
  readonly rates?: ChaosRates;
  /** Chance that the App process is killed as a job starts (default 0.04). */
  readonly killRate?: number;
  /** Chance that it is killed while it handles the command, up to 400 ms after the delivery (default 0.25). */
  readonly commandKillRate?: number;
  /** Chance that a dropped delivery is redelivered at the end of a round (default 0.5); the rest never arrive. */
  readonly redeliverRate?: number;
  /** Runs once the mission settled, before the invariants are checked (a scenario breaks them on purpose). */
  readonly beforeChecks?: (world: AppWorld, mission: string) => Promise<void>;
}

export interface SeedResult {
  readonly seed: number;
  /** What does not hold; none: the seed passed. */
  readonly failures: readonly string[];
  readonly faults: readonly InjectedFault[];
  /** Kills, redeliveries, sweeps and how the mission ended, for the report line. */
  readonly story: readonly string[];
  readonly summary: string;
}

/** Sweeps without anything to run before the mission counts as never settling. */
const MAX_SWEEPS = 8;
const MAX_RUNS = 80;
/** How far each sweep moves the jobs' clock: past the quiet time of a waiting checkpoint (10 minutes). */
const SWEEP_STEP_MS = 11 * 60_000;

const SHIFTED_CLOCK = pathToFileURL(join(REPO_ROOT, "test/support/chaos/shifted-clock.mjs")).href;

/** K items, each creating its own file; every third one waits for the one before it. */
export function campaignPlan(items: number): string {
  const lines = ["version: 1", `title: ${items} files under faults`, "items:"];
  for (let i = 0; i < items; i++) {
    lines.push(`  - id: f${i}`, `    writes: [${fileOf(`f${i}`)}]`);
    if (i % 3 === 2) lines.push(`    after: [f${i - 1}]`);
    lines.push("    prompt: |", `      create ${fileOf(`f${i}`)} "file ${i}\\n"`);
  }
  return `${lines.join("\n")}\n`;
}

/** The App scenarios' config (the demo agent), with room for every item and three attempts each. */
function campaignConfig(items: number): string {
  return APP_CONFIG.replace("max_parallel: 4", `max_parallel: ${items}`).replace("max_attempts: 1", "max_attempts: 3");
}

export async function runSeed(input: SeedInput): Promise<SeedResult> {
  const { seed, items } = input;
  const ids = Array.from({ length: items }, (_, i) => `f${i}`);
  const story: string[] = [];
  const injector = createInjector(seed, input.rates ?? DEFAULT_RATES);
  // Kills and redeliveries draw from a generator of their own: the requests' faults stay the same.
  const random = seededRandom((seed ^ 0x5eed_c4a5) >>> 0);
  const runnerEnv: Record<string, string> = { NODE_OPTIONS: `--import ${SHIFTED_CLOCK}`, NARUTO_TEST_CLOCK_OFFSET_MS: "0" };
  let world: AppWorld | null = null;
  let jobs = 0;
  const beforeJob = async () => {
    jobs++;
    if (world === null) return;
    if (world.app.pid !== null && random() < (input.killRate ?? 0.04)) {
      story.push(`App killed before job ${jobs}`);
      await world.app.kill();
    } else if (world.app.pid === null && random() < 0.5) {
      story.push(`App started before job ${jobs}`);
      await world.app.start();
    }
  };
  world = await startAppWorld({ config: campaignConfig(items), runnerEnv, beforeJob });
  const w = world;
  try {
    // The maintainer's comment is made before the faults begin; its delivery is the first fault's chance.
    const commentId = await w.postComment({ as: MAINTAINER, body: withPlan(`/naruto ${items} files under faults`, campaignPlan(items)) });
    const id = missionIdFor(REPO, commentId);
    w.fake.setFaultSource(injector);
    if (random() < (input.commandKillRate ?? 0.25)) {
      // Answered at once and handled after: the kill lands somewhere in the handling.
      const delay = Math.floor(random() * 400);
      await w.fake.deliver({ event: "issue_comment", payload: w.fake.payloads.issueComment({ repo: REPO, commentId }), url: w.app.url });
      await new Promise((r) => setTimeout(r, delay));
      await w.app.kill();
      // Which window the kill hit, read off the fake: before the 👀, between it and the mission's first save, or after.
      const eyes = [...w.fake.repo(REPO).reactions.values()].some((r) => r.subject.kind === "comment" && r.subject.id === commentId && r.content === "eyes");
      const stored = (await w.bareGit("for-each-ref", "--format=%(refname)", `refs/heads/naruto-state/${id}`)) !== "";
      story.push(
        `App killed ${delay} ms after the command's delivery (${eyes ? "after" : "before"} its 👀, ${stored ? "after" : "before"} the mission's first save)`,
      );
    } else {
      await w.deliverComment(commentId);
    }

    let sweeps = 0;
    let offset = 0;
    let settled = false;
    let redelivered = 0;
    let rounds = 0;
    const decided = new Set<string>();
    for (;;) {
      if (w.app.pid === null) {
        story.push("App started after the round");
        await w.app.start();
      }
      // The schedule does not wait for the runs: now and then it fires while dispatched runs wait.
      if (random() < 0.15) {
        story.push(`sweep beside waiting runs (round ${rounds})`);
        await w.sim.trigger({ event: "schedule" });
        await w.idle();
      }
      rounds++;
      const ran = await w.runPending();
      redelivered += await redeliverSome(w, random, input.redeliverRate ?? 0.5, decided);
      if (w.runs.length > MAX_RUNS) break;
      if (ran.length > 0) continue;
      const m = await w.mission(id).catch(() => null);
      if (m !== null && isMissionTerminal(m.status)) {
        settled = true;
        break;
      }
      if (sweeps >= MAX_SWEEPS) break;
      // Nothing runs: the schedule fires, a little later each time.
      sweeps++;
      offset += SWEEP_STEP_MS;
      runnerEnv["NARUTO_TEST_CLOCK_OFFSET_MS"] = String(offset);
      await w.sim.trigger({ event: "schedule" });
      await w.idle();
    }
    injector.stop();
    await w.idle();
    await input.beforeChecks?.(w, id);
    const failures = settled ? [] : [`the mission did not settle within ${MAX_SWEEPS} sweeps and ${MAX_RUNS} runs`];
    failures.push(...(await violations(w, id, ids)));
    const violationsOfFake = (() => {
      try {
        w.fake.assertNoViolations();
        return [];
      } catch (error) {
        return [`the fake GitHub saw a misuse: ${error instanceof Error ? error.message.replaceAll("\n", "\n      ") : String(error)}`];
      }
    })();
    failures.push(...violationsOfFake);
    const m = await w.mission(id);
    const integrated = m?.items.filter((i) => i.status === "integrated").length ?? 0;
    const summary = `${m?.status ?? "no mission"}, ${integrated}/${items} integrated, ${w.runs.length} runs, ${sweeps} sweeps, ${injector.log.length} faults, ${story.filter((s) => s.includes("killed")).length} kills, ${redelivered} redelivered`;
    return { seed, failures, faults: injector.log, story, summary };
  } catch (error) {
    injector.stop();
    return {
      seed,
      failures: [`the campaign itself failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n${w.appLogs()}`],
      faults: injector.log,
      story,
      summary: "error",
    };
  } finally {
    await w.close();
  }
}

/** Redelivers each dropped delivery not yet decided with chance `rate`; the others are given up for good. */
async function redeliverSome(world: AppWorld, random: () => number, rate: number, decided: Set<string>): Promise<number> {
  let n = 0;
  for (const d of world.fake.deliveries) {
    const last = d.attempts.at(-1);
    if (last === undefined || !last.dropped || decided.has(d.id)) continue;
    decided.add(d.id);
    if (random() >= rate) continue;
    await world.redeliver(d.id);
    n++;
  }
  return n;
}
