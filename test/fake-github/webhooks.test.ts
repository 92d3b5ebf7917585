/**
 * Webhook deliveries: signed like GitHub's, redelivered with the same id and bytes, dropped on
 * demand; payloads built from the recorded examples with the fake's own objects.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { example } from "../support/fake-github/payload-examples.ts";
import { api, field, startDemo, type Demo } from "./helpers.ts";

interface Received {
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

const SECRET = "It's a Secret to Everybody";
let demo: Demo;
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(202).end("accepted");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/api/github/webhooks`;
  demo = await startDemo({ webhook: { url: receiverUrl, secret: SECRET } });
});
afterAll(async () => {
  demo.github.assertNoViolations();
  await demo.github.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

/** Verifies a delivery the way @octokit/webhooks does: HMAC-SHA256 of the raw body. */
function verified(delivery: Received, secret: string): boolean {
  const expected = Buffer.from(`sha256=${createHmac("sha256", secret).update(delivery.body).digest("hex")}`);
  const given = Buffer.from(String(delivery.headers["x-hub-signature-256"]));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

describe("webhook deliveries", () => {
  it("posts signed JSON with GitHub's headers, and redelivers the same id and bytes", async () => {
    received.length = 0;
    const result = await demo.github.deliver({ event: "ping", payload: example("ping", null) });
    expect(result).toMatchObject({ status: 202, dropped: false, body: "accepted" });
    const [first] = received;
    if (first === undefined) throw new Error("nothing was delivered");
    expect(first.headers).toMatchObject({
      "content-type": "application/json",
      "x-github-event": "ping",
      "x-github-delivery": result.id,
      "user-agent": expect.stringMatching(/^GitHub-Hookshot\//),
    });
    expect(result.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(verified(first, SECRET)).toBe(true);
    expect(verified(first, "wrong secret")).toBe(false);

    const again = await demo.github.redeliver(result.id);
    expect(again.id).toBe(result.id);
    expect(received[1]?.headers["x-github-delivery"]).toBe(result.id);
    expect(received[1]?.body).toBe(first.body);
  });

  it("drops a delivery on demand, keeps it for redelivery, and records every attempt", async () => {
    received.length = 0;
    demo.github.faults.push({ dropWebhook: true, event: "issue_comment" });
    const created = await api(demo.github, demo.maintainer)("POST", "/repos/acme/demo/issues/1/comments", { body: "dropped on the way" });
    const payload = demo.github.payloads.issueComment({ repo: "acme/demo", commentId: Number(field(created.body, "id")) });
    const dropped = await demo.github.deliver({ event: "issue_comment", payload });
    expect(dropped).toMatchObject({ dropped: true, status: null });
    expect(received).toHaveLength(0);
    await demo.github.redeliver(dropped.id);
    expect(received).toHaveLength(1);
    expect(demo.github.deliveries.find((d) => d.id === dropped.id)?.attempts.map((a) => a.dropped)).toEqual([true, false]);
  });

  it("reports a receiver that does not answer", async () => {
    const result = await demo.github.deliver({ event: "ping", payload: example("ping", null), url: "http://127.0.0.1:9/nothing-here" });
    expect(result.status).toBeNull();
    expect(result.error).toBeDefined();
  });
});

describe("payload builders", () => {
  it("build issue_comment.created from the recorded example with the fake's issue and comment", async () => {
    const created = await api(demo.github, demo.maintainer)("POST", "/repos/acme/demo/issues/1/comments", { body: "/naruto add validation" });
    const payload = demo.github.payloads.issueComment({ repo: "acme/demo", commentId: Number(field(created.body, "id")) });
    expect(payload).toMatchObject({
      action: "created",
      issue: { number: 1, title: "First issue" },
      comment: { id: field(created.body, "id"), body: "/naruto add validation", user: { login: "octo-maintainer" } },
      repository: { full_name: "acme/demo", owner: { login: "acme" } },
      sender: { login: "octo-maintainer" },
      installation: { id: demo.github.installationId("acme") },
    });
    // Fields the fake does not model still come from GitHub's recorded example.
    expect(field(payload, "issue", "labels_url")).toEqual(expect.any(String));
  });

  it("build workflow_run, workflow_job and pull_request payloads for the fake's objects", async () => {
    const call = api(demo.github, demo.maintainer);
    await call("POST", "/repos/acme/demo/actions/workflows/naruto.yml/dispatches", { ref: "main", inputs: { mission: "m-9" } });
    const runId = demo.github.dispatches.at(-1)?.runId ?? 0;
    demo.github.setRunStatus(runId, { status: "completed", conclusion: "success" });
    const jobId = demo.github.setJob(runId, { name: "integrate", status: "completed", conclusion: "success" });
    expect(demo.github.payloads.workflowRun({ repo: "acme/demo", runId, action: "completed" })).toMatchObject({
      action: "completed",
      workflow_run: { id: runId, conclusion: "success", path: ".github/workflows/naruto.yml" },
      workflow: { path: ".github/workflows/naruto.yml" },
    });
    expect(demo.github.payloads.workflowJob({ repo: "acme/demo", runId, jobId, action: "completed" })).toMatchObject({
      action: "completed",
      workflow_job: { id: jobId, run_id: runId, name: "integrate", conclusion: "success" },
    });

    const tree = await call("POST", "/repos/acme/demo/git/trees", { tree: [{ path: "x.txt", mode: "100644", type: "blob", content: "x" }] });
    const commit = await call("POST", "/repos/acme/demo/git/commits", { message: "x", tree: field(tree.body, "sha"), parents: [demo.mainSha] });
    await call("POST", "/repos/acme/demo/git/refs", { ref: "refs/heads/pr", sha: field(commit.body, "sha") });
    const pull = await call("POST", "/repos/acme/demo/pulls", { title: "pr", head: "pr", base: "main" });
    const payload = await demo.github.payloads.pullRequest({ repo: "acme/demo", number: Number(field(pull.body, "number")), action: "opened" });
    expect(payload).toMatchObject({
      action: "opened",
      number: field(pull.body, "number"),
      pull_request: { head: { ref: "pr", sha: field(commit.body, "sha") } },
    });
  });
});
