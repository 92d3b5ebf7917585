import { describe, expect, it } from "vitest";
import { buildAgentEnv } from "./agent-env.ts";

const attempt = { mission: "m-1", item: "a", attempt: 2, writes: ["x.ts", { path: "dir/" }], promptFile: "/p", resultFile: "/r" };

describe("buildAgentEnv", () => {
  it("keeps only basics that are set, allowlisted names, and the NARUTO_* variables", () => {
    const { env, dropped } = buildAgentEnv({
      from: { PATH: "/bin", TERM: "xterm", EDITOR: "vim", API_KEY: "k", NARUTO_MISSION: "stale" },
      allow: ["API_KEY", "ABSENT"],
      attempt,
    });
    expect(env).toEqual({
      PATH: "/bin",
      API_KEY: "k",
      NARUTO_PROMPT_FILE: "/p",
      NARUTO_RESULT_FILE: "/r",
      NARUTO_MISSION: "m-1",
      NARUTO_ITEM: "a",
      NARUTO_ATTEMPT: "2",
      NARUTO_WRITES: "x.ts\ndir/",
    });
    expect(dropped).toEqual([]);
  });

  it("tells the planner where to write its plan in NARUTO_PLAN_FILE, and no one else", () => {
    expect(buildAgentEnv({ from: {}, allow: [], attempt: { ...attempt, planFile: "/io/plan.yml" } }).env.NARUTO_PLAN_FILE).toBe("/io/plan.yml");
    expect(buildAgentEnv({ from: { NARUTO_PLAN_FILE: "/stale" }, allow: ["NARUTO_PLAN_FILE"], attempt }).env.NARUTO_PLAN_FILE).toBeUndefined();
  });

  it.each([
    ["GITHUB_TOKEN"],
    ["GH_TOKEN"],
    ["GH_ENTERPRISE_TOKEN"],
    ["GITHUB_PAT_ADMIN"],
    ["COPILOT_GITHUB_TOKEN"],
    ["ACTIONS_RUNTIME_TOKEN"],
    ["ACTIONS_ID_TOKEN_REQUEST_URL"],
    ["INPUT_GITHUB-TOKEN"],
    ["GITHUB_OUTPUT"],
    ["GITHUB_ENV"],
    ["GITHUB_STEP_SUMMARY"],
    ["GIT_DIR"],
    ["NARUTO_ITEM"],
  ])("drops %s even when allowlisted", (name) => {
    const { env, dropped } = buildAgentEnv({ from: { [name]: "secret" }, allow: [name], attempt });
    expect(Object.values(env)).not.toContain("secret");
    expect(dropped.map((d) => d.name)).toEqual([name]);
  });
});
