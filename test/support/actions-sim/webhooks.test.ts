/**
 * Run webhooks: a dispatch run announces itself to a listening app as GitHub would, in order,
 * signed, with the run's `run-name` as its title; a delivery nobody answers is recorded as
 * failed and the run still finishes.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signWebhook, startFakeGitHub, type FakeGitHub } from "../fake-github/index.ts";
import { createActionsSimulator, runUntilQuiet, type ActionsSimulator } from "./index.ts";
import { runWebhooks, type RunWebhooks } from "./webhooks.ts";

const SECRET = "hook-secret";
const WORKFLOW = `name: hooks
run-name: \${{ format('hooks {0} {1}', inputs.what, vars.SUFFIX) }}
on:
  workflow_dispatch:
    inputs:
      what:
        required: true
        type: string
jobs:
  first:
    runs-on: ubuntu-latest
    steps:
      - run: echo one
  never:
    needs: first
    if: false
    runs-on: ubuntu-latest
    steps:
      - run: echo never
`;

interface Received {
  readonly event: string;
  readonly signed: boolean;
  readonly payload: {
    action: string;
    workflow_run?: { id: number; display_title: string; status: string };
    workflow_job?: { name: string; status: string; conclusion: string | null; workflow_name: string };
  };
}

let fake: FakeGitHub;
let sim: ActionsSimulator;
let hooks: RunWebhooks;
let server: Server;
let url: string;
let listening = true;
const received: Received[] = [];
let dispatcher: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    request.on("end", () => {
      if (!listening) return void response.destroy();
      received.push({
        event: String(request.headers["x-github-event"]),
        signed: request.headers["x-hub-signature-256"] === signWebhook(SECRET, body),
        payload: JSON.parse(body) as Received["payload"],
      });
      response.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  fake = await startFakeGitHub({ webhook: { secret: SECRET } });
  dispatcher = fake.addUser("octo-maintainer", { permission: "write" }).token;
  await fake.createRepo({ owner: "acme", name: "hooks", files: { ".github/workflows/naruto.yml": WORKFLOW } });
  hooks = runWebhooks({ fake, repo: "acme/hooks", url: () => url, vars: { SUFFIX: "now" } });
  sim = hooks.wrap(
    await createActionsSimulator({
      fake: hooks.fake,
      repo: "acme/hooks",
      actionDir: fileURLToPath(new URL("../../../", import.meta.url)),
      vars: { SUFFIX: "now" },
    }),
  );
});
afterAll(async () => {
  await sim?.close();
  await fake?.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function dispatch(what: string): Promise<void> {
  const response = await fetch(`${fake.apiUrl}/repos/acme/hooks/actions/workflows/naruto.yml/dispatches`, {
    method: "POST",
    headers: { authorization: `token ${dispatcher}`, "content-type": "application/json" },
    body: JSON.stringify({ ref: "main", inputs: { what } }),
  });
  expect(response.status).toBe(204);
}

describe("run webhooks", () => {
  it("announce a dispatch run in GitHub's order, signed, titled by run-name, before the run returns", async () => {
    await dispatch("build");
    const [run] = await runUntilQuiet({ fake, simulator: sim });
    const lines = received.map((r) =>
      r.event === "workflow_run"
        ? `run ${r.payload.action} ${r.payload.workflow_run?.status} "${r.payload.workflow_run?.display_title}"`
        : `job ${r.payload.action} ${r.payload.workflow_job?.name} ${r.payload.workflow_job?.conclusion} ${r.payload.workflow_job?.workflow_name}`,
    );
    expect(lines).toEqual([
      'run requested queued "hooks build now"',
      'run in_progress in_progress "hooks build now"',
      "job queued first null hooks",
      "job in_progress first null hooks",
      "job completed first success hooks",
      "job completed never skipped hooks",
      'run completed completed "hooks build now"',
    ]);
    expect(received.filter((r) => r.event === "workflow_run").map((r) => r.payload.workflow_run?.id)).toEqual([run?.id, run?.id, run?.id]);
    expect(received.every((r) => r.signed)).toBe(true);
    expect(hooks.sent.map((s) => s.result.status)).toEqual(lines.map(() => 200));
  });

  it("records deliveries nobody answered as failed; the run still finishes", async () => {
    listening = false;
    const before = hooks.sent.length;
    await dispatch("again");
    const [run] = await runUntilQuiet({ fake, simulator: sim });
    listening = true;
    expect(run?.conclusion).toBe("success");
    const lost = hooks.sent.slice(before);
    expect(lost.map((s) => `${s.event}.${s.action}`)).toEqual([
      "workflow_run.requested",
      "workflow_run.in_progress",
      "workflow_job.queued",
      "workflow_job.in_progress",
      "workflow_job.completed",
      "workflow_job.completed",
      "workflow_run.completed",
    ]);
    expect(lost.every((s) => s.result.status === null)).toBe(true);
  });
});
