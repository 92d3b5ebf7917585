/** What the Action reads from the runner: inputs, the event, the context; and what it passes on. */
import { describe, expect, it } from "vitest";
import { actionContext } from "../../src/action/context.ts";
import { commentEventOf, dispatchInputOf } from "../../src/github-driver/event-payload.ts";
import { parseWorkEntry } from "../../src/action/modes/work.ts";
import { remoteFor, scrubbedEnv } from "../../src/action/remote.ts";
import { parseMode } from "../../src/action/run-mode.ts";
import { tokenVariables } from "../../src/action/step-env.ts";
import { missionIdFor, runIdOf } from "../../src/github-driver/mission-id.ts";

const comment = (over: Record<string, unknown> = {}) => ({
  action: "created",
  repository: { full_name: "acme/demo", default_branch: "main" },
  issue: {
    number: 7,
    body: "the issue",
    pull_request: { url: "https://api.github.com/repos/acme/demo/pulls/7" },
    user: { login: "octo-author", id: 41, type: "User" },
  },
  comment: { id: 99, body: "/naruto go", user: { login: "octo", id: 42, type: "User" } },
  ...over,
});

describe("the event", () => {
  it("reads a created issue comment, and nothing else", () => {
    expect(commentEventOf("issue_comment", comment())).toEqual({
      repo: "acme/demo",
      defaultBranch: "main",
      issue: { number: 7, pullRequest: true, body: "the issue", user: { login: "octo-author", id: 41, type: "User" } },
      comment: { id: 99, body: "/naruto go", user: { login: "octo", id: 42, type: "User" } },
    });
    // Without the author's numeric id nobody can check who wrote it.
    expect(commentEventOf("issue_comment", comment({ comment: { id: 99, body: "/naruto go", user: { login: "octo", type: "User" } } }))).toBeNull();
    expect(commentEventOf("issue_comment", comment({ action: "edited" }))).toBeNull();
    expect(commentEventOf("issue_comment", { action: "created" })).toBeNull();
    expect(commentEventOf("workflow_dispatch", comment())).toBeNull();
    expect(commentEventOf("issue_comment", comment({ issue: { number: 7, body: null } }))?.issue.pullRequest).toBe(false);
  });

  it.each([
    [{ inputs: { phase: "work", items: '[{"item":"a","attempt":2}]' } }, { phase: "work", items: [{ item: "a", attempt: 2 }] }],
    [{ inputs: { phase: "plan", items: "[]" } }, { phase: "plan", items: [] }],
    [{ inputs: { phase: "work", items: "not json" } }, { phase: "work", items: [] }],
    [{ inputs: { phase: "work", items: '[{"item":"../x","attempt":1}]' } }, { phase: "work", items: [] }],
    [{ inputs: { phase: "deploy" } }, { phase: null, items: [] }],
    [{}, { phase: null, items: [] }],
    [{ inputs: { phase: "integrate", run: "4711" } }, { phase: "integrate", items: [], run: 4711 }],
    [{ inputs: { phase: "integrate", run: "4711", items: '[{"item":"a","attempt":2}]' } }, { phase: "integrate", items: [], run: 4711 }],
    [{ inputs: { phase: "integrate", run: "" } }, { phase: null, items: [] }],
    [{ inputs: { phase: "integrate", run: "1 || true" } }, { phase: null, items: [] }],
    [{ inputs: { phase: "integrate" } }, { phase: null, items: [] }],
  ])("dispatch inputs %j", (payload, expected) => {
    expect(dispatchInputOf("workflow_dispatch", payload)).toEqual(expected);
  });
});

describe("inputs", () => {
  it.each([
    ["users-api#2", { item: "users-api", attempt: 2 }],
    [" a.b_c#1 ", { item: "a.b_c", attempt: 1 }],
  ])("work entry %j", (value, expected) => {
    expect(parseWorkEntry(value)).toEqual(expected);
  });
  it.each(["users-api", "#1", "a#0", "A#1", "a#1;rm -rf /", "../a#1"])("refuses work entry %j", (value) => {
    expect(() => parseWorkEntry(value)).toThrow(/expected ITEM#ATTEMPT/);
  });
  it("knows the modes", () => {
    expect(parseMode("queue")).toBe("queue");
    expect(parseMode("publish")).toBe("publish");
    expect(() => parseMode("integrate")).toThrow(/was split into two jobs: `queue`.*and `publish`.*templates\/naruto.yml/);
    expect(() => parseMode("deploy")).toThrow(/expected one of command, plan, work, watch, review, queue, publish, sweep/);
  });
});

describe("ids", () => {
  it("derives one mission id per comment", () => {
    const id = missionIdFor("acme/demo", 99);
    expect(id).toMatch(/^m-[0-9a-f]{12}$/);
    expect(missionIdFor("ACME/demo", 99)).toBe(id);
    expect(missionIdFor("acme/demo", 100)).not.toBe(id);
    expect(missionIdFor("acme/other", 99)).not.toBe(id);
  });
  it.each([
    ["https://github.com/acme/demo/actions/runs/123", 123],
    ["https://github.com/acme/demo/actions/runs/123/job/9", 123],
    ["run 55", 55],
    ["pid 77", null],
    [null, null],
  ])("run id of %j", (runner, expected) => {
    expect(runIdOf(runner)).toBe(expected);
  });
});

describe("the runner's context and what naruto passes on", () => {
  it("reads the GITHUB_* variables", () => {
    const ctx = actionContext(
      {
        GITHUB_REPOSITORY: "acme/demo",
        GITHUB_SERVER_URL: "https://ghe.example/",
        GITHUB_API_URL: "https://ghe.example/api/v3",
        GITHUB_RUN_ID: "42",
        GITHUB_WORKFLOW_REF: "acme/demo/.github/workflows/agents.yml@refs/heads/main",
        GITHUB_REF_NAME: "trunk",
        GITHUB_EVENT_NAME: "schedule",
      },
      "/cwd",
    );
    expect(ctx).toMatchObject({
      fullName: "acme/demo",
      serverUrl: "https://ghe.example",
      apiUrl: "https://ghe.example/api/v3",
      runUrl: "https://ghe.example/acme/demo/actions/runs/42",
      workflow: "agents.yml",
      ref: "trunk",
      workspace: "/cwd",
    });
    expect(() => actionContext({}, "/cwd")).toThrow(/GITHUB_REPOSITORY is not set/);
  });

  it("gives git the token in its environment only, and starts everything else without it", () => {
    const remote = remoteFor("https://github.com", "acme/demo", "ghs_secret");
    expect(remote.url).toBe("https://github.com/acme/demo.git");
    expect(remote.env["GIT_CONFIG_VALUE_0"]).toBe(`AUTHORIZATION: basic ${Buffer.from("x-access-token:ghs_secret").toString("base64")}`);
    const env = scrubbedEnv({
      PATH: "/bin",
      HOME: "/home/runner",
      GITHUB_TOKEN: "t",
      "INPUT_GITHUB-TOKEN": "t",
      ACTIONS_RUNTIME_TOKEN: "t",
      ANTHROPIC_API_KEY: "k",
      CI: "true",
    });
    expect(env).toEqual({ PATH: "/bin", HOME: "/home/runner", CI: "true" });
  });
});

describe("the agent step's environment", () => {
  it("names every variable that carries a token, and passes the rest", () => {
    const env = {
      PATH: "/bin",
      HOME: "/home/runner",
      NARUTO_CLI: "/a/dist/index.js",
      NARUTO_PREPARED: "/t/naruto-prepared.json",
      ANTHROPIC_API_KEY: "k",
      GITHUB_TOKEN: "ghs_x",
      gh_token: "t",
      ACTIONS_RUNTIME_TOKEN: "eyJ",
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: "i",
      "INPUT_GITHUB-TOKEN": "ghs_x",
      ACTIONS_RUNTIME_URL: "https://x",
      GH_ENTERPRISE_TOKEN: "",
    };
    expect(tokenVariables(env)).toEqual(["ACTIONS_ID_TOKEN_REQUEST_TOKEN", "ACTIONS_RUNTIME_TOKEN", "GITHUB_TOKEN", "INPUT_GITHUB-TOKEN", "gh_token"]);
    expect(tokenVariables({ PATH: "/bin", NARUTO_PREPARED: "/t/p.json" })).toEqual([]);
  });
});
