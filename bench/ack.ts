/**
 * How fast the App acknowledges webhooks (issue 15, DESIGN.md §12: "acknowledges within 1 s"):
 * 100 signed deliveries sent at once to the App as its own process (`npm start`, against the
 * fake GitHub), a mix of what a busy repository sends: `/naruto plan` commands with a plan,
 * `/naruto status`, and `workflow_run` / `workflow_job` events of missions under way. Each
 * answer's latency is timed from the request to the answer's end. Beside it, in the same run,
 * the same 100 bodies sent at once to a tiny HTTP server that reads the body and answers: the
 * floor this machine sets.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { missionIdFor } from "../src/github-driver/mission-id.ts";
import { APP_CONFIG, ONE_ITEM_PLAN, withPlan } from "../test/e2e/support/app-checks.ts";
import { MAINTAINER, REPO, WEBHOOK_SECRET, startAppWorld } from "../test/e2e/support/app-world.ts";
import { signWebhook } from "../test/support/fake-github/index.ts";

const DELIVERIES = 100;

interface Prepared {
  readonly event: string;
  readonly body: string;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

async function burst(url: string, deliveries: readonly Prepared[]): Promise<{ ms: number[]; statuses: Map<number, number> }> {
  const statuses = new Map<number, number>();
  const ms = await Promise.all(
    deliveries.map(async ({ event, body }, i) => {
      const started = performance.now();
      const response = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-github-event": event,
          "x-github-delivery": `bench-${Date.now()}-${i}`,
          "x-hub-signature-256": signWebhook(WEBHOOK_SECRET, body),
        },
        body,
      });
      await response.arrayBuffer();
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      return performance.now() - started;
    }),
  );
  return { ms: ms.sort((a, b) => a - b), statuses };
}

export async function run(): Promise<void> {
  const world = await startAppWorld({ config: APP_CONFIG, runWebhooks: false });
  const tiny = createServer((request, response) => {
    request.resume();
    request.on("end", () => response.writeHead(200, { "content-type": "text/plain" }).end("ok\n"));
  });
  await new Promise<void>((resolve) => tiny.listen(0, "127.0.0.1", resolve));
  try {
    // Missions under way whose runs send events.
    const missions: { id: string; runId: number }[] = [];
    for (let i = 0; i < 5; i++) {
      const { commentId } = await world.comment({ as: MAINTAINER, body: withPlan(`/naruto a guide ${i}`, ONE_ITEM_PLAN) });
      const id = missionIdFor(REPO, commentId);
      const dispatch = world.fake.dispatches.find((d) => d.inputs["mission"] === id);
      if (dispatch !== undefined) missions.push({ id, runId: dispatch.runId });
    }
    world.sim.takeDispatches();
    if (missions.length === 0) throw new Error("no mission started: the App dispatched nothing");

    const prepared: Prepared[] = [];
    for (let i = 0; prepared.length < DELIVERIES; i++) {
      const kind = i % 4;
      const { id, runId } = missions[i % missions.length]!;
      if (kind === 0 || kind === 1) {
        const body = kind === 0 ? withPlan(`/naruto plan burst ${i}`, ONE_ITEM_PLAN) : "/naruto status";
        const commentId = await world.postComment({ as: MAINTAINER, body });
        prepared.push({ event: "issue_comment", body: JSON.stringify(world.fake.payloads.issueComment({ repo: REPO, commentId })) });
      } else if (kind === 2) {
        world.fake.setRunStatus(runId, { status: "in_progress" });
        const payload = world.fake.payloads.workflowRun({ repo: REPO, runId, action: "in_progress" });
        prepared.push({
          event: "workflow_run",
          body: JSON.stringify({ ...payload, workflow_run: { ...(payload["workflow_run"] as object), display_title: `naruto plan ${id}` } }),
        });
      } else {
        const jobId = world.fake.setJob(runId, { name: `plan ${id}`, status: "in_progress" });
        prepared.push({ event: "workflow_job", body: JSON.stringify(world.fake.payloads.workflowJob({ repo: REPO, runId, jobId, action: "in_progress" })) });
      }
    }

    const floor = await burst(`http://127.0.0.1:${(tiny.address() as AddressInfo).port}/`, prepared);
    const started = performance.now();
    const app = await burst(world.app.url, prepared);
    const answered = performance.now() - started;
    await world.idle();
    const handled = performance.now() - started;
    const line = (name: string, r: { ms: number[]; statuses: Map<number, number> }) =>
      `${name.padEnd(12)} p50 ${percentile(r.ms, 50).toFixed(0).padStart(5)} ms  p99 ${percentile(r.ms, 99).toFixed(0).padStart(5)} ms  max ${(r.ms.at(-1) ?? 0).toFixed(0).padStart(5)} ms  answers ${[...r.statuses].map(([s, n]) => `${n}×${s}`).join(", ")}`;
    console.log(`${DELIVERIES} deliveries at once (25 /naruto plan, 25 /naruto status, 25 workflow_run, 25 workflow_job):`);
    console.log(line("naruto App", app));
    console.log(line("tiny server", floor));
    console.log(`all answered after ${answered.toFixed(0)} ms; all handled after ${handled.toFixed(0)} ms`);
    console.log(`bench ack p99_ms=${percentile(app.ms, 99).toFixed(0)}`);
    console.log(`bench ack tiny_p99_ms=${percentile(floor.ms, 99).toFixed(0)}`);
    console.log(`bench ack handled_all_ms=${handled.toFixed(0)}`);
  } finally {
    await new Promise<void>((resolve) => tiny.close(() => resolve()));
    await world.close();
  }
}
