/** Workflow and action files through GitHub's own parser: what the simulator runs and what it refuses. */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { readLocalAction } from "./action-steps.ts";
import { FIXTURE_WORKFLOW } from "./simulator.fixture.ts";
import { parseWorkflow, WorkflowError } from "./workflow.ts";

const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** A workflow with one job `a` (plus `jobs`, indented as jobs), run on push. */
const workflow = (jobs: string) => `on: push\njobs:\n${jobs}`;

describe("workflow files", () => {
  it("reads the template with no diagnostic, with GitHub's implicit success() on its conditions", async () => {
    const template = parseWorkflow(await readFile(new URL("../../../templates/naruto.yml", import.meta.url), "utf8"), ".github/workflows/naruto.yml");
    expect(template.jobs.map((j) => j.id)).toEqual(["command", "plan", "work", "watch", "review", "queue", "publish", "sweep"]);
    expect(template.jobs.find((j) => j.id === "plan")?.if.expression).toBe("success() && (github.event_name == 'workflow_dispatch' && inputs.phase == 'plan')");
    expect(template.jobs.find((j) => j.id === "queue")?.if.expression).toBe("always() && github.event_name == 'workflow_dispatch'");
    expect(template.on["workflow_dispatch"]).toMatchObject({
      inputs: { phase: { type: "choice", options: ["plan", "work", "review", "integrate", "refresh"] }, run: { type: "string" } },
    });
  });

  it("reads the simulator's own fixture, its step ids as GitHub gives them", () => {
    const fixture = parseWorkflow(FIXTURE_WORKFLOW, "fixture.yml");
    const prepare = fixture.jobs.find((j) => j.id === "prepare");
    expect(prepare?.steps.map((s) => [s.id, s.actionId])).toEqual([
      [null, "__actions_checkout"],
      ["say", "say"],
      ["check", "check"],
      [null, "__actions_checkout_2"],
      [null, "__run"],
    ]);
    expect(prepare?.permissions).toEqual({ contents: "read" });
    expect(fixture.permissions).toEqual({});
  });

  it("reads the repository's action.yml with GitHub's action parser", async () => {
    const action = await readLocalAction(REPO_ROOT);
    expect(action.using).toMatch(/^node\d+$/);
    expect(action.inputs.get("mode")?.required).toBe(true);
    expect(action.inputs.get("github-token")?.default?.toDisplayString()).toContain("github.token");
  });

  it.each([
    [
      "a job that needs an unknown job",
      workflow("  a:\n    runs-on: x\n    steps: [{ run: x }]\n  b:\n    needs: c\n    runs-on: x\n    steps: [{ run: x }]\n"),
      /depends on unknown job 'c'/,
    ],
    [
      "a cycle",
      workflow(
        "  a:\n    runs-on: x\n    steps: [{ run: x }]\n  b:\n    needs: [a, c]\n    runs-on: x\n    steps: [{ run: x }]\n  c:\n    needs: b\n    runs-on: x\n    steps: [{ run: x }]\n",
      ),
      /creates a cycle/,
    ],
    ["a step with both uses and run", workflow("  a:\n    runs-on: x\n    steps: [{ run: x, uses: y }]\n"), /Unexpected value 'uses'/],
    ["a key GitHub does not know", workflow("  a:\n    runs-on: x\n    step: [{ run: x }]\n"), /Unexpected value 'step'/],
    ["a job without runs-on", workflow("  a:\n    steps: [{ run: x }]\n"), /Required property is missing: runs-on/],
    [
      "a context the place does not allow",
      workflow("  a:\n    runs-on: ${{ steps.x.outputs.y }}\n    steps: [{ run: x }]\n"),
      /Unrecognized named-value: 'steps'/,
    ],
    ["an expression that does not parse", workflow('  a:\n    runs-on: x\n    steps: [{ run: "${{ inputs.a == }}" }]\n'), /Unexpected end of expression/],
    [
      "a job container, which the simulator does not model",
      workflow("  a:\n    runs-on: x\n    container: node:20\n    steps: [{ run: x }]\n"),
      /jobs\.a\.container: the simulator does not model it/,
    ],
    ["a reusable workflow", workflow("  a:\n    uses: acme/w/.github/workflows/x.yml@main\n"), /does not model reusable workflows/],
    ["text that is not YAML", "on: [push\n", /w\.yml/],
  ])("refuses %s", (_, text, message) => {
    expect(() => parseWorkflow(text, "w.yml")).toThrow(WorkflowError);
    expect(() => parseWorkflow(text, "w.yml")).toThrow(message);
  });

  it("orders jobs after what they need", () => {
    const parsed = parseWorkflow(
      workflow(
        "  c:\n    needs: [a, b]\n    runs-on: x\n    steps: [{ run: x }]\n  b:\n    needs: a\n    runs-on: x\n    steps: [{ run: x }]\n  a:\n    runs-on: x\n    steps: [{ run: x }]\n",
      ),
      "w.yml",
    );
    expect(parsed.jobs.map((j) => j.id)).toEqual(["a", "b", "c"]);
  });
});
