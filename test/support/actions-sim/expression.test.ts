/**
 * Expressions as the simulator evaluates them with GitHub's `@actions/expressions`: its contexts
 * handed over as the package's data and read back, the status functions the simulator answers,
 * conditions with GitHub's implicit `success() &&`, and workflow values that keep their type or
 * become strings as the runner passes them.
 */
import { describe, expect, it } from "vitest";
import { evaluateExpression, ExpressionFailure, toPlain, type EvalContext, type StatusFacts } from "./expressions.ts";
import { conditionOf, stringsOf, TemplateValueError, textOf, valueOfToken } from "./template-eval.ts";
import { parseWorkflow, type JobSpec } from "./workflow.ts";

const context: EvalContext = {
  contexts: {
    github: { event_name: "workflow_dispatch", event: { comment: { body: "/naruto do it" }, labels: [{ name: "a" }, { name: "b" }] } },
    inputs: { mission: "m-1", phase: "work", items: '[{"item":"a","attempt":1}]', count: "3" },
    matrix: { item: "a", attempt: 2 },
    steps: { naruto: { outputs: { artifact: "/tmp/x" } } },
    needs: {},
    secrets: { GITHUB_TOKEN: "t" },
  },
};

const evaluate = (source: string) => toPlain(evaluateExpression(source, context));

/** The one job of a workflow made of `job`'s lines (indented as a job's keys). */
function jobOf(lines: string): JobSpec {
  const [job] = parseWorkflow(`on: workflow_dispatch\njobs:\n  j:\n    runs-on: ubuntu-latest\n${lines}`, "w.yml").jobs;
  if (job === undefined) throw new Error("no job");
  return job;
}

describe("expressions", () => {
  it.each<[string, unknown]>([
    ["inputs.phase == 'WORK'", true],
    ["github.event_name == 'workflow_dispatch' && inputs.mission", "m-1"],
    ["inputs.nothing || 'fallback'", "fallback"],
    ["inputs.count == 3", true],
    ["matrix.attempt >= 2 && matrix.attempt < 3", true],
    ["GITHUB.EVENT_NAME", "workflow_dispatch"],
    ["github['event_name']", "workflow_dispatch"],
    ["github.event.nothing.deeper", null],
    ["github.event.labels.*.name", ["a", "b"]],
    ["contains(github.event.labels.*.name, 'B')", true],
    ["startsWith(github.event.comment.body, '/naruto')", true],
    ["format('{0}-{1} {{x}}', inputs.mission, matrix.item)", "m-1-a {x}"],
    ["fromJSON(inputs.items)[0].item", "a"],
    ["join(fromJSON('[1,2]'), '+')", "1+2"],
    ["toJSON(matrix)", '{\n  "item": "a",\n  "attempt": 2\n}'],
    ["steps.naruto.outputs.artifact", "/tmp/x"],
    ["secrets.missing", null],
  ])("%s → %j", (source, expected) => {
    expect(evaluate(source)).toEqual(expected);
  });

  it.each([
    ["a syntax error", "inputs.phase =="],
    ["a context the place does not provide", "runner.temp"],
    ["hashFiles, which the simulator does not model", "hashFiles('x')"],
    ["fromJSON of what is not JSON", "fromJSON('{')"],
  ])("refuses %s", (_, source) => {
    expect(() => evaluateExpression(source, context)).toThrow(ExpressionFailure);
  });
});

describe("conditions", () => {
  const ok: StatusFacts = { success: true, failure: false, cancelled: false };
  const failed: StatusFacts = { success: false, failure: true, cancelled: false };
  const cancelled: StatusFacts = { success: true, failure: false, cancelled: true };

  it.each<[string, StatusFacts, boolean]>([
    ["", ok, true],
    ["", failed, false],
    ["    if: inputs.phase == 'work'\n", ok, true],
    ["    if: inputs.phase == 'work'\n", failed, false],
    ["    if: always() && inputs.phase == 'work'\n", failed, true],
    ["    if: ${{ failure() }}\n", failed, true],
    ["    if: ${{ !cancelled() }}\n", failed, true],
    ["    if: success()\n", cancelled, false],
    ["    if: cancelled()\n", cancelled, true],
    ["    if: false\n", ok, false],
  ])("%j with %j → %s", (lines, status, expected) => {
    const job = jobOf(`${lines}    steps: [{ run: x }]\n`);
    expect(conditionOf(job.if, { ...context, status })).toBe(expected);
  });
});

describe("workflow values", () => {
  const job = jobOf(
    [
      "    strategy:",
      "      max-parallel: 2",
      "      matrix:",
      "        include: ${{ fromJSON(inputs.items) }}",
      "    env:",
      "      NAME: naruto-work-${{ matrix.item }}-${{ matrix.attempt }}",
      "      QUOTED: ${{ format('}}{0}', 'x') }}!",
      "      COUNT: ${{ matrix.attempt }}",
      "      FLAG: true",
      "      WHOLE: ${{ github.event }}",
      "    steps: [{ run: x }]",
      "",
    ].join("\n"),
  );

  it("keeps the type of a whole-value expression and of literals", () => {
    expect(valueOfToken(job.strategy, context)).toEqual({ "max-parallel": 2, matrix: { include: [{ item: "a", attempt: 1 }] } });
  });

  it("interpolates into strings, a quoted }} inside an expression included", () => {
    const env = job.env;
    if (env === undefined) throw new Error("no env");
    const value = (key: string) => {
      const token = env.find(key);
      if (token === undefined) throw new Error(`no ${key}`);
      return textOf(token, context);
    };
    expect([value("NAME"), value("QUOTED"), value("COUNT"), value("FLAG")]).toEqual(["naruto-work-a-2", "}x!", "2", "true"]);
  });

  it("refuses a mapping where the runner passes a string, as GitHub does", () => {
    expect(() => stringsOf(job.env, context)).toThrow(TemplateValueError);
  });
});
