/**
 * GitHub's webhook schemas (@octokit/webhooks-schemas) judge every payload the fake builds:
 * first the translated schemas themselves (they accept GitHub's own recordings and refuse what
 * GitHub would never send), then each builder for every event and action naruto handles, then
 * `deliver()`, which refuses a malformed payload before sending it.
 *
 * Bite check (done once, by hand): with the envelope's `sender` built without `id` in
 * payloads.ts, 18 builder cases here failed with `payload.sender.id: is required`, and so did
 * test/app/run-events.test.ts, whose deliveries deliver() refused (MalformedPayloadError).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRequire } from "node:module";
import { example, overlay, type Payload } from "../support/fake-github/payload-examples.ts";
import { validateSchema } from "../support/fake-github/json-schema.ts";
import type { DispatchRecord } from "../support/fake-github/index.ts";
import { MalformedPayloadError, translateWebhookSchemas, validateWebhook } from "../support/fake-github/webhook-schemas.ts";
import { api, field, startDemo, type Demo } from "./helpers.ts";

/** The events and actions naruto's App and Action read (src/app/app.ts, src/github-driver/event-payload.ts). */
const HANDLED: readonly (readonly [string, string | null])[] = [
  ["issue_comment", "created"],
  ["workflow_run", "requested"],
  ["workflow_run", "completed"],
  ["workflow_job", "in_progress"],
  ["workflow_job", "completed"],
  ["workflow_dispatch", null],
];

describe("GitHub's webhook schemas, translated for the fake's validator", () => {
  it.each(HANDLED)("accept GitHub's own recording of %s %s", (event, action) => {
    expect(validateWebhook({ event, payload: example(event, action) })).toEqual([]);
  });

  it("accept most of GitHub's recordings of every event (some predate fields the schema now requires)", () => {
    const recordings = createRequire(import.meta.url)("@octokit/webhooks-examples") as readonly { name: string; examples: readonly Payload[] }[];
    const all = recordings.flatMap((d) => d.examples.map((payload) => ({ event: d.name, payload })));
    const passing = all.filter((r) => validateWebhook(r).length === 0);
    expect(passing.length / all.length).toBeGreaterThan(0.8);
  });

  const comment = () => example("issue_comment", "created");
  const without = (value: unknown, key: string): Payload => {
    const copy: Payload = { ...(typeof value === "object" && value !== null ? value : {}) };
    delete copy[key];
    return copy;
  };
  it.each<[string, (p: Payload) => Payload, string]>([
    ["sender.id dropped", (p) => ({ ...p, sender: without(p["sender"], "id") }), "payload.sender.id: is required"],
    ["sender.type a number", (p) => overlay(p, { sender: { type: 1 } }), "payload.sender.type: is integer, expected string"],
    ["a field GitHub does not send", (p) => overlay(p, { sender: { nickname: "octo" } }), "payload.sender.nickname: is not a documented field"],
    ["comment.body null", (p) => overlay(p, { comment: { body: null } }), "payload.comment.body: is null, expected string"],
    ["created_at not a date-time", (p) => overlay(p, { comment: { created_at: "yesterday" } }), "payload.comment.created_at: does not match"],
    ["a URL without a scheme", (p) => overlay(p, { comment: { html_url: "github.com/x" } }), "payload.comment.html_url: does not match"],
    ["repository.owner null", (p) => overlay(p, { repository: { owner: null } }), "payload.repository.owner: is null"],
  ])("refuse a payload with %s", (_, breakIt, problem) => {
    const payload = JSON.parse(JSON.stringify(breakIt(comment()))) as Payload;
    expect(validateWebhook({ event: "issue_comment", payload }).join("\n")).toContain(problem);
  });

  it("refuse an action the event does not have, and an event GitHub does not send", () => {
    expect(validateWebhook({ event: "issue_comment", payload: { ...comment(), action: "archived" } })).not.toEqual([]);
    expect(validateWebhook({ event: "schedule", payload: {} })).toEqual([expect.stringContaining("no schema for the schedule event")]);
  });

  it("fails loudly on a keyword it does not check, instead of passing everything", () => {
    const lookup = translateWebhookSchemas({ x: { type: "object", properties: { a: { not: { type: "string" } } } } });
    expect(() => lookup("x")).toThrow(/keyword not is not checked/);
  });

  it("follows a definition that refers to itself, and reports a broken nullable branch field by field", () => {
    const lookup = translateWebhookSchemas({
      node: {
        type: "object",
        properties: { next: { oneOf: [{ $ref: "#/definitions/node" }, { type: "null" }] }, v: { type: "integer" } },
        required: ["v"],
        additionalProperties: false,
      },
    });
    const schema = lookup("node");
    if (schema === null) throw new Error("no schema for node");
    expect(validateSchema(schema, { v: 1, next: { v: 2, next: null } }, "payload")).toEqual([]);
    expect(validateSchema(schema, { v: 1, next: { v: "2", next: null } }, "payload")).toEqual(["payload.next.v: is string, expected integer"]);
  });
});

describe("the fake's payload builders", () => {
  let demo: Demo;
  let runId: number;
  let jobs: Record<string, number>;
  let pull: number;
  let issueComment: number;
  let pullComment: number;
  let appComment: number;

  beforeAll(async () => {
    demo = await startDemo();
    const call = api(demo.github, demo.maintainer);
    issueComment = Number(field((await call("POST", "/repos/acme/demo/issues/1/comments", { body: "/naruto plan" })).body, "id"));
    await call("POST", "/repos/acme/demo/actions/workflows/naruto.yml/dispatches", { ref: "main", inputs: { mission: "m-1" } });
    runId = demo.github.dispatches.at(-1)?.runId ?? 0;
    demo.github.setRunStatus(runId, { status: "in_progress" });
    jobs = {
      queued: demo.github.setJob(runId, { name: "plan", status: "queued" }),
      in_progress: demo.github.setJob(runId, { name: "work", status: "in_progress" }),
      completed: demo.github.setJob(runId, { name: "integrate", status: "completed", conclusion: "success" }),
      waiting: demo.github.setJob(runId, { name: "review", status: "waiting" }),
    };
    const tree = await call("POST", "/repos/acme/demo/git/trees", { tree: [{ path: "x.txt", mode: "100644", type: "blob", content: "x" }] });
    const commit = await call("POST", "/repos/acme/demo/git/commits", { message: "x", tree: field(tree.body, "sha"), parents: [demo.mainSha] });
    await call("POST", "/repos/acme/demo/git/refs", { ref: "refs/heads/pr", sha: field(commit.body, "sha") });
    pull = Number(field((await call("POST", "/repos/acme/demo/pulls", { title: "pr", head: "pr", base: "main" })).body, "number"));
    const app = demo.github.issueAppToken({ owner: "acme", permissions: { issues: "write" } }).token;
    appComment = Number(field((await api(demo.github, app)("POST", "/repos/acme/demo/issues/1/comments", { body: "naruto's reply" })).body, "id"));
    pullComment = Number(field((await call("POST", `/repos/acme/demo/issues/${pull}/comments`, { body: "/naruto fix-review" })).body, "id"));
  });
  afterAll(async () => {
    await demo.github.close();
  });
  const lastDispatch = (): DispatchRecord => {
    const dispatch = demo.github.dispatches.at(-1);
    if (dispatch === undefined) throw new Error("nothing was dispatched");
    return dispatch;
  };

  const cases: readonly (readonly [string, () => Payload | Promise<Payload>])[] = [
    ["issue_comment created on an issue", () => demo.github.payloads.issueComment({ repo: "acme/demo", commentId: issueComment })],
    ["issue_comment created on a pull request", () => demo.github.payloads.issueComment({ repo: "acme/demo", commentId: pullComment })],
    ["issue_comment created by the App", () => demo.github.payloads.issueComment({ repo: "acme/demo", commentId: appComment })],
    ["issue_comment edited", () => demo.github.payloads.issueComment({ repo: "acme/demo", commentId: issueComment, action: "edited" })],
    ["issue_comment deleted", () => demo.github.payloads.issueComment({ repo: "acme/demo", commentId: issueComment, action: "deleted" })],
    ...(["opened", "synchronize", "reopened"] as const).map(
      (action) => [`pull_request ${action}`, () => demo.github.payloads.pullRequest({ repo: "acme/demo", number: pull, action })] as const,
    ),
    ...(["requested", "in_progress"] as const).map(
      (action) => [`workflow_run ${action}`, () => demo.github.payloads.workflowRun({ repo: "acme/demo", runId, action })] as const,
    ),
    ...(["queued", "in_progress", "completed", "waiting"] as const).map(
      (action) => [`workflow_job ${action}`, () => demo.github.payloads.workflowJob({ repo: "acme/demo", runId, jobId: jobs[action] ?? 0, action })] as const,
    ),
    ["workflow_dispatch", () => demo.github.payloads.workflowDispatch({ dispatch: lastDispatch() })],
  ];

  it.each(cases)("build %s as GitHub's schema describes it", async (name, build) => {
    const event = name.split(" ")[0] ?? name;
    expect(validateWebhook({ event, payload: await build() })).toEqual([]);
  });

  // GitHub's schema ties some actions to the object's state: a `closed` pull request is closed.
  it("build pull_request closed and workflow_run completed once the fake's objects are", async () => {
    await api(demo.github, demo.maintainer)("PATCH", `/repos/acme/demo/pulls/${pull}`, { state: "closed" });
    expect(
      validateWebhook({ event: "pull_request", payload: await demo.github.payloads.pullRequest({ repo: "acme/demo", number: pull, action: "closed" }) }),
    ).toEqual([]);
    demo.github.setRunStatus(runId, { status: "completed", conclusion: "success" });
    expect(validateWebhook({ event: "workflow_run", payload: demo.github.payloads.workflowRun({ repo: "acme/demo", runId, action: "completed" }) })).toEqual(
      [],
    );
  });

  it("name the fake's objects, not the recording's accounts", async () => {
    const payload = demo.github.payloads.issueComment({ repo: "acme/demo", commentId: issueComment });
    expect(payload).toMatchObject({
      sender: { login: "octo-maintainer", type: "User", id: expect.any(Number) },
      organization: { login: "acme" },
      installation: { id: demo.github.installationId("acme") },
      issue: { number: 1, assignee: null, assignees: [] },
    });
    expect(field(payload, "issue", "pull_request")).toBeUndefined();
    const byApp = demo.github.payloads.issueComment({ repo: "acme/demo", commentId: appComment });
    expect(field(byApp, "comment", "user", "type")).toBe("Bot");
    expect(field(byApp, "comment", "performed_via_github_app", "id")).toEqual(expect.any(Number));
    expect(field(demo.github.payloads.issueComment({ repo: "acme/demo", commentId: pullComment }), "issue", "pull_request", "url")).toContain(`/pulls/${pull}`);
  });

  it("build workflow_dispatch with the dispatch's inputs, ref, workflow and the full sender", () => {
    expect(demo.github.payloads.workflowDispatch({ dispatch: lastDispatch() })).toMatchObject({
      inputs: { mission: "m-1", mode: "work" },
      ref: "refs/heads/main",
      workflow: ".github/workflows/naruto.yml",
      sender: { login: "octo-maintainer", id: expect.any(Number), type: "User" },
      repository: { full_name: "acme/demo" },
    });
  });

  it("leave out `organization` for a repository a user owns", async () => {
    demo.github.addUser("octo-solo", { permission: "write" });
    await demo.github.createRepo({ owner: "octo-solo", name: "alone", files: { "README.md": "x\n" }, issues: [{ title: "t", user: "octo-solo" }] });
    const call = api(demo.github, demo.github.tokenFor("octo-solo"));
    const id = Number(field((await call("POST", "/repos/octo-solo/alone/issues/1/comments", { body: "hi" })).body, "id"));
    const payload = demo.github.payloads.issueComment({ repo: "octo-solo/alone", commentId: id });
    expect(payload["organization"]).toBeUndefined();
    expect(validateWebhook({ event: "issue_comment", payload })).toEqual([]);
  });
});

describe("deliver()", () => {
  let demo: Demo;
  let receiver: Server;
  let hits = 0;
  beforeAll(async () => {
    receiver = createServer((_, res) => {
      hits++;
      res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    demo = await startDemo({ webhook: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`, secret: "s" } });
  });
  afterAll(async () => {
    await demo.github.close();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  it("refuses a payload GitHub could never send, and sends nothing", async () => {
    const { sender: _, ...payload } = example("issue_comment", "created");
    const refused = await demo.github.deliver({ event: "issue_comment", payload }).catch((e: unknown) => e);
    if (!(refused instanceof MalformedPayloadError)) throw new Error(`deliver() sent a payload without a sender: ${String(refused)}`);
    expect(refused.problems).toContain("payload.sender: is required");
    expect([hits, demo.github.deliveries.length]).toEqual([0, 0]);
    expect((await demo.github.deliver({ event: "ping", payload: example("ping", null) })).status).toBe(200);
    expect(hits).toBe(1);
  });
});
