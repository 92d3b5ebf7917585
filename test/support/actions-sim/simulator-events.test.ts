/** Events other than dispatches (a comment, a schedule), a workflow GitHub's parser refuses, and a job past its time limit. */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeGitHub, type FakeGitHub } from "../fake-github/index.ts";
import { createActionsSimulator, formatRun, runUntilQuiet, type ActionsSimulator } from "./index.ts";

const WORKFLOW = `name: events
on:
  issue_comment:
    types: [created]
  workflow_dispatch:
jobs:
  slow:
    if: github.event_name == 'workflow_dispatch'
    runs-on: ubuntu-latest
    steps:
      - run: sleep 60
      - run: echo never
  on-comment:
    if: github.event_name == 'issue_comment'
    runs-on: ubuntu-latest
    steps:
      - run: echo "said $BODY by \${{ github.event.comment.user.login }}"
        env:
          BODY: \${{ github.event.comment.body }}
`;

const ACTION_DIR = fileURLToPath(new URL("../../../", import.meta.url));

let fake: FakeGitHub;
let sim: ActionsSimulator | undefined;
let maintainer: string;

beforeAll(async () => {
  fake = await startFakeGitHub();
  maintainer = fake.addUser("octo-maintainer", { permission: "write" }).token;
  await fake.createRepo({ owner: "acme", name: "events", files: { ".github/workflows/naruto.yml": WORKFLOW }, issues: [{ title: "An issue" }] });
  sim = await createActionsSimulator({ fake, repo: "acme/events", actionDir: ACTION_DIR });
});
afterAll(async () => {
  await sim?.close();
  await fake?.close();
});

describe("events and limits", () => {
  it("runs an issue_comment event with the comment in the event payload; no run for a schedule the workflow lacks", async () => {
    if (sim === undefined) throw new Error("no simulator");
    const response = await fetch(`${fake.apiUrl}/repos/acme/events/issues/1/comments`, {
      method: "POST",
      headers: { authorization: `token ${maintainer}`, "content-type": "application/json" },
      body: JSON.stringify({ body: "/naruto hello; $(touch /tmp/pwned)" }),
    });
    const { id } = (await response.json()) as { id: number };
    const run = await sim.trigger({ event: "issue_comment", payload: fake.payloads.issueComment({ repo: "acme/events", commentId: id }) });
    expect(
      run?.jobs.map((j) => `${j.name}:${j.result}`),
      run === null ? "" : formatRun(run, { withLogs: true }),
    ).toEqual(["slow:skipped", "on-comment:success"]);
    expect(run?.jobs[1]?.steps[0]?.log).toContain("said /naruto hello; $(touch /tmp/pwned) by octo-maintainer");
    expect(await sim.trigger({ event: "schedule" })).toBeNull();
  });

  it("refuses to run a workflow GitHub's parser finds fault with, naming what it found", async () => {
    const invalid = "on:\n  schedule:\n    - cron: '0 0 * * *'\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ nosuch.value }}\n";
    await fake.createRepo({ owner: "acme", name: "invalid", files: { ".github/workflows/naruto.yml": invalid } });
    const refusing = await createActionsSimulator({ fake, repo: "acme/invalid", actionDir: ACTION_DIR });
    try {
      await expect(refusing.trigger({ event: "schedule" })).rejects.toThrow(/naruto\.yml \(Line: 8, Col: \d+\): Unrecognized named-value: 'nosuch'/);
    } finally {
      await refusing.close();
    }
  });

  it("fails a job past its time limit and skips its remaining steps", async () => {
    // A simulator of its own: a cap this short would also stop a loaded machine's quick jobs.
    const capped = await createActionsSimulator({ fake, repo: "acme/events", actionDir: ACTION_DIR, jobTimeoutMs: 1500 });
    try {
      const answer = await fetch(`${fake.apiUrl}/repos/acme/events/actions/workflows/naruto.yml/dispatches`, {
        method: "POST",
        headers: { authorization: `token ${maintainer}`, "content-type": "application/json" },
        body: JSON.stringify({ ref: "main" }),
      });
      expect(answer.status).toBe(204);
      const [run] = await runUntilQuiet({ fake, simulator: capped });
      const slow = run?.jobs.find((j) => j.name === "slow");
      expect(slow?.result).toBe("failure");
      expect(slow?.reason).toContain("maximum execution time");
      expect(slow?.steps.map((s) => s.conclusion)).toEqual(["failure", "skipped"]);
      expect(run?.conclusion).toBe("failure");
    } finally {
      await capped.close();
    }
  });
});
