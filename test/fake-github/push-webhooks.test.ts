/**
 * The App's `push` webhooks (GitHub: "push: one or more commits are pushed to a repository
 * branch or tag", also sent for a branch deleted, with `deleted: true`): the fake delivers one
 * per branch created, moved (REST or git push) or deleted in a repository the App is installed
 * on, each payload valid against GitHub's published schema, in the order the pushes happened.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, scratch, startDemo, type Demo } from "./helpers.ts";

let demo: Demo;
let receiver: Server;
let receiverUrl: string;
const received: { event: string; body: Record<string, unknown> }[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ event: String(req.headers["x-github-event"]), body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown> });
      res.writeHead(202).end("accepted");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/api/github/webhooks`;
  demo = await startDemo({ webhook: { secret: "push-secret" } });
});
afterAll(async () => {
  demo.github.assertNoViolations();
  await demo.github.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

const pushes = () =>
  received
    .filter((r) => r.event === "push")
    .map((r) => ({ ref: r.body["ref"], before: r.body["before"], after: r.body["after"], deleted: r.body["deleted"], forced: r.body["forced"] }));

describe("push webhooks to the App", () => {
  it("are sent for branches created, moved and deleted, through the API and git, and not before the App subscribes", async () => {
    const call = api(demo.github, demo.maintainer);
    const zero = "0".repeat(40);
    await call("POST", "/repos/acme/demo/git/refs", { ref: "refs/heads/quiet", sha: demo.mainSha });
    await demo.github.pushWebhooksIdle();
    expect(pushes()).toEqual([]);

    demo.github.sendPushWebhooks({ url: () => receiverUrl });
    const tree = (await call("POST", "/repos/acme/demo/git/trees", { tree: [{ path: "a.md", mode: "100644", type: "blob", content: "a\n" }] })).body as {
      sha: string;
    };
    const commit = (await call("POST", "/repos/acme/demo/git/commits", { message: "a", tree: tree.sha, parents: [demo.mainSha] })).body as { sha: string };
    await call("POST", "/repos/acme/demo/git/refs", { ref: "refs/heads/feature", sha: demo.mainSha });
    await call("PATCH", "/repos/acme/demo/git/refs/heads/feature", { sha: commit.sha });
    await call("POST", "/repos/acme/demo/git/refs", { ref: "refs/tags/v1", sha: commit.sha });
    await call("DELETE", "/repos/acme/demo/git/refs/heads/feature");
    await demo.github.pushWebhooksIdle();
    expect(pushes()).toEqual([
      { ref: "refs/heads/feature", before: zero, after: demo.mainSha, deleted: false, forced: false },
      { ref: "refs/heads/feature", before: demo.mainSha, after: commit.sha, deleted: false, forced: false },
      { ref: "refs/heads/feature", before: commit.sha, after: zero, deleted: true, forced: false },
    ]);
    const moved = received.filter((r) => r.event === "push")[1]?.body;
    expect(moved).toMatchObject({
      repository: { full_name: "acme/demo" },
      installation: { id: expect.any(Number) },
      pusher: { name: "octo-maintainer" },
      sender: { login: "octo-maintainer" },
      head_commit: { id: commit.sha },
    });
    expect(received.filter((r) => r.event === "push")[2]?.body["head_commit"]).toBeNull();

    // A git push: its branch and its deletion too.
    received.length = 0;
    const work = await scratch();
    try {
      await work.git(work.dir, "clone", "-q", demo.github.gitUrl("acme/demo", demo.maintainer), "clone");
      const dir = `${work.dir}/clone`;
      await work.git(dir, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "empty");
      const head = await work.git(dir, "rev-parse", "HEAD");
      await work.git(dir, "push", "-q", "origin", "HEAD:refs/heads/by-git");
      await work.git(dir, "push", "-q", "origin", ":refs/heads/by-git");
      // git's client may end before the fake's handler read what the push moved: wait for it.
      for (let i = 0; i < 100 && pushes().length < 2; i++) {
        await demo.github.pushWebhooksIdle();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(pushes()).toEqual([
        { ref: "refs/heads/by-git", before: zero, after: head, deleted: false, forced: false },
        { ref: "refs/heads/by-git", before: head, after: zero, deleted: true, forced: false },
      ]);
    } finally {
      await work.remove();
    }
    demo.github.sendPushWebhooks(null);
  });
});
