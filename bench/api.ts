/**
 * GitHub API calls of whole missions (issue 15): a `/naruto` command with a plan of N
 * independent items, delivered to the App as its own process, and every run it dispatches run
 * by the Actions simulator through the bundled Action, with the runs' workflow_run /
 * workflow_job webhooks sent to the App, exactly as the App e2e scenarios do. Every request
 * comes from the fake GitHub's request log: the App's (its bot), the jobs' (their tokens), and
 * none of this benchmark's own.
 *
 * The naive way beside it is what the issue measured on the design before: one workflow run
 * per attempt and the App searching every stored mission for a run's (121 + 85·N calls).
 *
 * `NARUTO_BENCH_API_SIZES=4,16` measures fewer sizes (default 4,16,64,256; 256 takes long; empty:
 * none). The App runs with its default tracking interval (5 s), as deployed.
 *
 * First, without the App: the watch job's requests counted against the `GITHUB_TOKEN`'s 1,000
 * an hour per repository, at 16, 64 and 256 legs (`NARUTO_BENCH_API_WATCH_LEGS`), on legs whose
 * steps move as a runner's do, beside the naive way (every page every 15 s): _watch-budget.ts.
 */
import { performance } from "node:perf_hooks";
import { missionIdFor } from "../src/github-driver/mission-id.ts";
import { APP_CONFIG, withPlan } from "../test/e2e/support/app-checks.ts";
import { apiCallsSince, independentPlan as plan } from "../test/e2e/support/api-calls.ts";
import { MAINTAINER, REPO, startAppWorld, type AppWorld } from "../test/e2e/support/app-world.ts";
import { measureWatch, naiveWatch, theWatch } from "./_watch-budget.ts";

const SIZES = (process.env["NARUTO_BENCH_API_SIZES"] ?? "4,16,64,256")
  .split(",")
  .map(Number)
  .filter((n) => Number.isInteger(n) && n > 0);
const WATCH_LEGS = (process.env["NARUTO_BENCH_API_WATCH_LEGS"] ?? "16,64,256")
  .split(",")
  .map(Number)
  .filter((n) => Number.isInteger(n) && n > 1);
const STORED = 20;
/** What a workflow's `GITHUB_TOKEN` may make in an hour, per repository, on github.com. */
const TOKEN_PER_HOUR = 1_000;

/** The watch job's counted requests an hour, and the naive way's on the same legs. */
async function watchBudget(): Promise<void> {
  for (const legs of WATCH_LEGS) {
    const w = await measureWatch({ legs, watcher: theWatch });
    const n = await measureWatch({ legs, watcher: naiveWatch });
    const share = (perHour: number) => `${Math.round(perHour)}/h (${((100 * perHour) / TOKEN_PER_HOUR).toFixed(0)}% of ${TOKEN_PER_HOUR})`;
    console.log(
      `watch ${String(legs).padStart(3)} legs: ${share(w.perHour)} counted, ${w.peakHour} in its busiest hour; ${w.reads} reads over ${w.minutes.toFixed(0)} min, ${w.quietReads} of them all 304, ${w.dispatches} integrate runs, ${w.checks} checks of the one in flight; naive ${share(n.perHour)}, ${n.peakHour} in its busiest hour, ${n.reads} reads, ${n.dispatches} integrate runs; ratio ${(n.perHour / Math.max(1, w.perHour)).toFixed(2)}x`,
    );
    console.log(`bench api watch_requests_per_hour_${legs}=${Math.round(w.perHour)}`);
    console.log(`bench api watch_busiest_hour_${legs}=${w.peakHour}`);
    console.log(`bench api watch_ratio_vs_naive_${legs}=${(n.perHour / Math.max(1, w.perHour)).toFixed(2)}`);
  }
}

const config = (parallel: number) => APP_CONFIG.replace("max_parallel: 4", `max_parallel: ${parallel}`);

interface Measured {
  readonly items: number;
  /** Of `total`, the 304s (conditional GETs of what did not change): GitHub does not count them against the rate limit. */
  readonly notModified: number;
  readonly stored: number;
  readonly total: number;
  readonly app: number;
  readonly jobs: number;
  readonly runs: number;
  /** Integrate runs the App dispatched for the mission. */
  readonly integrateRuns: number;
  readonly runWebhooks: number;
  readonly appPerWebhook: number;
  readonly status: string;
  readonly seconds: number;
  readonly top: string;
  /** The mission's saves (tree creations holding its records) and the bytes they sent. */
  readonly saves: number;
  readonly saveBytes: number;
  /** Records sent per save, in order ("+" marks a save on top of its parent's tree). */
  readonly saveRecords: string;
  /** The whole mission document at the end, as the store sent it at every save before the records. */
  readonly wholeBytes: number;
}

async function mission(items: number, stored: number): Promise<Measured> {
  const world: AppWorld = await startAppWorld({ config: config(Math.min(items, 64)), appEnv: { NARUTO_TRACKING_INTERVAL_MS: "5000" } });
  try {
    for (let i = 0; i < stored; i++) {
      await world.comment({ as: MAINTAINER, body: withPlan(`/naruto plan earlier mission ${i}`, plan(1)) });
    }
    world.sim.takeDispatches();
    const started = performance.now();
    const before = world.fake.requests.length;
    const { commentId } = await world.comment({ as: MAINTAINER, body: withPlan(`/naruto ${items} files`, plan(items)) });
    const afterCommand = world.fake.requests.length;
    const hooksBefore = world.runHooks.sent.length;
    await world.settle(items * 4 + 20);
    await world.idle();
    const seconds = (performance.now() - started) / 1000;
    const calls = apiCallsSince(world, before);
    const appOnRuns = world.fake.requests.slice(afterCommand).filter((r) => r.user === world.botLogin && (r.kind === "rest" || r.kind === "graphql")).length;
    const runWebhooks = world.runHooks.sent.length - hooksBefore;
    const detail = process.env["NARUTO_BENCH_API_DETAIL"] === "1";
    const top = calls.byOperation
      .slice(0, detail ? 100 : 6)
      .map(([op, n]) => `${op} ${n}`)
      .join(detail ? "\n        " : "; ");
    const id = missionIdFor(REPO, commentId);
    const final = await world.mission(id);
    const integrateRuns = world.fake.dispatches.filter((d) => d.inputs["mission"] === id && d.inputs["phase"] === "integrate").length;
    const status = final?.status ?? "missing";
    const saves = world.fake.requests
      .slice(before)
      .filter((r) => r.method === "POST" && r.path.endsWith("/git/trees") && JSON.stringify(r.body).includes('"path":"document.json"'));
    const saveBytes = saves.reduce((sum, r) => sum + Buffer.byteLength(JSON.stringify(r.body)), 0);
    const wholeBytes = Buffer.byteLength(JSON.stringify(final ?? {}, null, 2));
    const saveRecords = saves
      .map((r) => {
        const body = r.body as { base_tree?: string; tree: unknown[] };
        return `${body.base_tree === undefined ? "" : "+"}${body.tree.length}`;
      })
      .join(" ");
    return {
      items,
      stored,
      notModified: calls.notModified,
      total: calls.total,
      app: calls.app,
      jobs: calls.jobs,
      runs: world.runs.length,
      integrateRuns,
      runWebhooks,
      appPerWebhook: runWebhooks === 0 ? 0 : appOnRuns / runWebhooks,
      status,
      seconds,
      top,
      saves: saves.length,
      saveBytes,
      saveRecords,
      wholeBytes,
    };
  } finally {
    await world.close();
  }
}

export async function run(): Promise<void> {
  await watchBudget();
  if (SIZES.length === 0) return;
  const rows: Measured[] = [];
  for (const items of SIZES) {
    const m = await mission(items, 0);
    rows.push(m);
    console.log(
      `${String(items).padStart(4)} items: ${m.total} calls (App ${m.app}, jobs ${m.jobs}; ${m.notModified} of them 304), ${(m.total / items).toFixed(1)}/item, ${((m.total - m.notModified) / items).toFixed(1)}/item counted by the rate limit, naive ${121 + 85 * items}; ${m.runs} runs (${m.integrateRuns} integrate), ${m.runWebhooks} run webhooks, App ${m.appPerWebhook.toFixed(2)}/webhook; mission ${m.status}; ${m.seconds.toFixed(0)} s`,
    );
    console.log(`      most: ${m.top}`);
    console.log(
      `      state: ${m.saves} saves sent ${(m.saveBytes / 1024).toFixed(0)} KiB (${(m.saveBytes / Math.max(1, m.saves) / 1024).toFixed(1)} KiB each; records sent: ${m.saveRecords}); the whole document, which each save sent before the records, is ${(m.wholeBytes / 1024).toFixed(0)} KiB at the end`,
    );
  }
  const small = SIZES[0] ?? 4;
  const crowded = await mission(small, STORED);
  const plain = rows.find((r) => r.items === small);
  console.log(
    `${String(small).padStart(4)} items with ${STORED} stored missions: App ${crowded.appPerWebhook.toFixed(2)}/webhook (with none: ${plain?.appPerWebhook.toFixed(2) ?? "?"}); mission ${crowded.status}`,
  );
  const largest = rows.at(-1);
  if (largest !== undefined) console.log(`bench api calls_per_item=${(largest.total / largest.items).toFixed(2)}`);
  if (largest !== undefined) console.log(`bench api rate_limited_calls_per_item=${((largest.total - largest.notModified) / largest.items).toFixed(2)}`);
  if (largest !== undefined) console.log(`bench api ratio_vs_naive=${((121 + 85 * largest.items) / largest.total).toFixed(2)}`);
  if (largest !== undefined) console.log(`bench api state_bytes_per_save=${Math.round(largest.saveBytes / Math.max(1, largest.saves))}`);
  if (largest !== undefined) console.log(`bench api whole_document_bytes=${largest.wholeBytes}`);
  console.log(`bench api app_calls_per_webhook=${plain?.appPerWebhook.toFixed(2) ?? "?"}`);
  console.log(`bench api app_calls_per_webhook_${STORED}_stored=${crowded.appPerWebhook.toFixed(2)}`);
  const big = rows.find((r) => r.items === 256);
  if (big !== undefined) console.log(`bench api mission_256_calls=${big.total}`);
}
