import { describe, expect, it } from "vitest";
import type { AgentRun } from "../agent/index.ts";
import { outcomeReason, type KeptWork } from "../mission/index.ts";
import { crashOutcome, type CrashInput } from "./attempt-failure.ts";

function crashed(exitCode: number, failure: NonNullable<AgentRun["result"]>["failure"] = null): AgentRun {
  return {
    outcome: "crashed",
    exitCode,
    signal: null,
    durationMs: 10,
    timedOut: false,
    limit: null,
    output: "",
    outputBytes: 0,
    outputTruncated: false,
    result: failure === null ? null : { summary: null, cost_usd: null, tokens_in: null, tokens_out: null, model: null, failure },
    resultText: null,
    leftovers: [],
    notes: [],
    prompt: "",
    planText: null,
    files: null,
  };
}

const input = (run: AgentRun, over: Partial<CrashInput> = {}): CrashInput => ({
  run,
  what: "the agent",
  why: `exited with code ${run.exitCode}`,
  work: null,
  sandboxed: true,
  authFix: null,
  tail: "sh: 1: x: not found",
  ...over,
});

describe("crashOutcome", () => {
  it.each([
    [127, true, "a command the agent runs was not found inside the sandbox", "--read PATH"],
    [127, false, "a command the agent runs was not found.", "Install it, or fix the command"],
    [126, true, "was found inside the sandbox but could not be run", "--read PATH"],
  ])("exit %i (sandboxed %s) is permanent: %s", (code, sandboxed, says, advice) => {
    const o = crashOutcome(input(crashed(code), { sandboxed }));
    expect(o.kind).toBe("permanent");
    if (o.kind !== "permanent") return;
    expect(o.cause).toBe("not_found");
    expect(o.reason).toContain(says);
    expect(o.reason).toContain(advice);
    expect(outcomeReason(o).endsWith("\nsh: 1: x: not found")).toBe(true);
  });

  it("takes the agent's word that its credentials were refused, with the preset's fix", () => {
    const o = crashOutcome(input(crashed(1, { kind: "authentication", message: "Not logged in" }), { authFix: "Run `claude setup-token`." }));
    expect(o).toMatchObject({ kind: "permanent", cause: "authentication" });
    expect(o.kind === "permanent" && o.reason).toContain(
      "exited with code 1: its CLI refused its credentials (Not logged in). naruto does not retry it: it would fail the same way. Run `claude setup-token`.",
    );
  });

  it("retries anything else", () => {
    const work: KeptWork = { kind: "kept", ref: "refs/naruto/attempts/m/a/1", commit: `${"0123456789ab".repeat(3)}0123`, outside: [] };
    const o = crashOutcome(input(crashed(3), { work }));
    expect(o).toEqual({ kind: "failed", reason: "exited with code 3", work, output: "sh: 1: x: not found" });
    expect(o.kind === "failed" && outcomeReason(o)).toBe(
      "exited with code 3; its partial work is kept at refs/naruto/attempts/m/a/1 (0123456789ab)\nsh: 1: x: not found",
    );
  });
});
