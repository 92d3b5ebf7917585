/**
 * The event a dispatch run gets at `GITHUB_EVENT_PATH` is GitHub's `workflow_dispatch` payload:
 * before, the simulator wrote `{ inputs, ref, repository: { six fields }, sender: { login },
 * workflow }`, which @octokit/webhooks-schemas refuses 103 times over (17 in `sender`, among them
 * `sender.id` and `sender.type`; the rest the repository's fields): a workflow reading
 * `github.event.sender.id` got nothing. That payload fails the first test here.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeGitHub, validateWebhook, type DispatchRecord, type FakeGitHub } from "../fake-github/index.ts";
import { dispatchTrigger } from "./events.ts";

const WORKFLOW = `name: naruto
on:
  workflow_dispatch:
    inputs:
      mission: { required: true, type: string }
      dry: { type: boolean, default: false }
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: echo a
`;

let fake: FakeGitHub;
let dispatch: DispatchRecord;

beforeAll(async () => {
  fake = await startFakeGitHub();
  const token = fake.addUser("octo-maintainer", { permission: "write" }).token;
  await fake.createRepo({ owner: "acme", name: "demo", files: { ".github/workflows/naruto.yml": WORKFLOW } });
  const answer = await fetch(`${fake.apiUrl}/repos/acme/demo/actions/workflows/naruto.yml/dispatches`, {
    method: "POST",
    headers: { authorization: `token ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ ref: "main", inputs: { mission: "m-1", dry: "true" } }),
  });
  expect(answer.status).toBe(204);
  const last = fake.dispatches.at(-1);
  if (last === undefined) throw new Error("the dispatch was not recorded");
  dispatch = last;
});
afterAll(async () => {
  await fake.close();
});

describe("a dispatch run's trigger", () => {
  const on = { workflow_dispatch: { inputs: { mission: { required: true, type: "string" }, dry: { type: "boolean", default: false } } } };

  it("carries GitHub's workflow_dispatch payload, which passes GitHub's schema", () => {
    const trigger = dispatchTrigger({ record: dispatch, on, payloads: fake.payloads });
    expect(validateWebhook({ event: "workflow_dispatch", payload: trigger.payload })).toEqual([]);
    expect(trigger.payload).toMatchObject({
      inputs: { mission: "m-1", dry: "true" },
      ref: "refs/heads/main",
      workflow: ".github/workflows/naruto.yml",
      sender: { login: "octo-maintainer", id: expect.any(Number), type: "User" },
      repository: { full_name: "acme/demo", owner: { login: "acme", type: "Organization" } },
      organization: { login: "acme" },
    });
  });

  it("types the inputs context from the workflow's declaration; the payload keeps GitHub's strings", () => {
    const trigger = dispatchTrigger({ record: dispatch, on, payloads: fake.payloads });
    expect(trigger.inputs).toEqual({ mission: "m-1", dry: true });
    expect(trigger).toMatchObject({
      event: "workflow_dispatch",
      ref: "refs/heads/main",
      sha: dispatch.sha,
      actor: "octo-maintainer",
      fakeRunId: dispatch.runId,
    });
  });
});
