/** The Actions expression subset, checked against GitHub's documented behaviour. */
import { describe, expect, it } from "vitest";
import { evaluateText, ExpressionError, type EvalContext } from "./expression-eval.ts";
import { ExpressionSyntaxError } from "./expression-parse.ts";
import { evaluateCondition, evaluateValue, interpolate } from "./interpolate.ts";

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

describe("expressions", () => {
  it.each<[string, unknown]>([
    ["inputs.phase == 'work'", true],
    ["inputs.phase == 'WORK'", true],
    ["inputs.phase != 'work'", false],
    ["github.event_name == 'workflow_dispatch' && inputs.mission", "m-1"],
    ["inputs.nothing || 'fallback'", "fallback"],
    ["!inputs.nothing", true],
    ["!(inputs.phase == 'work') || false", false],
    ["inputs.count == 3", true],
    ["inputs.count > 2", true],
    ["matrix.attempt >= 2 && matrix.attempt < 3", true],
    ["null == 0", true],
    ["true == 1", true],
    ["'' == 0", true],
    ["'abc' == 0", false],
    ["1.5e1 == 15", true],
    ["0x10 == 16", true],
    ["'it''s' == format('it{0}s', '''')", true],
    ["github['event_name']", "workflow_dispatch"],
    ["GITHUB.EVENT_NAME", "workflow_dispatch"],
    ["github.event.nothing.deeper", null],
    ["github.event.labels.*.name", ["a", "b"]],
    ["contains(github.event.labels.*.name, 'B')", true],
    ["contains('Hello', 'ell')", true],
    ["startsWith(github.event.comment.body, '/naruto')", true],
    ["startsWith(github.event.comment.body, '/other')", false],
    ["endsWith('abc', 'BC')", true],
    ["format('{0}-{1} {{x}}', inputs.mission, matrix.item)", "m-1-a {x}"],
    ["join(fromJSON('[1,2]'), '+')", "1+2"],
    ["fromJSON(inputs.items)[0].item", "a"],
    ["toJSON(matrix)", '{\n  "item": "a",\n  "attempt": 2\n}'],
    ["steps.naruto.outputs.artifact", "/tmp/x"],
    ["secrets.GITHUB_TOKEN", "t"],
    ["secrets.missing", null],
  ])("%s → %j", (source, expected) => {
    expect(evaluateText(source, context)).toEqual(expected);
  });

  it.each([
    ["inputs.phase ==", ExpressionSyntaxError],
    ["'open", ExpressionSyntaxError],
    ["a b", ExpressionSyntaxError],
    ["nosuch.thing", ExpressionError],
    ["hashFiles('x')", ExpressionError],
    ["fromJSON('{')", ExpressionError],
  ])("refuses %s", (source, error) => {
    expect(() => evaluateText(source, context)).toThrow(error);
  });
});

describe("interpolation and conditions", () => {
  it("interpolates into strings, keeping quoted }} inside an expression", () => {
    expect(interpolate("naruto-work-${{ matrix.item }}-${{ matrix.attempt }}", context)).toBe("naruto-work-a-2");
    expect(interpolate("${{ format('}}{0}', 'x') }}!", context)).toBe("}x!");
  });

  it("keeps the type of a whole-value expression and evaluates nested values", () => {
    expect(evaluateValue({ include: "${{ fromJSON(inputs.items) }}", n: "${{ matrix.attempt }}" }, context)).toEqual({
      include: [{ item: "a", attempt: 1 }],
      n: 2,
    });
  });

  it.each<[unknown, { success: boolean; failure: boolean; cancelled: boolean }, boolean]>([
    [undefined, { success: true, failure: false, cancelled: false }, true],
    [undefined, { success: false, failure: true, cancelled: false }, false],
    ["inputs.phase == 'work'", { success: false, failure: true, cancelled: false }, false],
    ["always() && inputs.phase == 'work'", { success: false, failure: true, cancelled: false }, true],
    ["${{ failure() }}", { success: false, failure: true, cancelled: false }, true],
    ["${{ !cancelled() }}", { success: false, failure: true, cancelled: false }, true],
    ["success()", { success: true, failure: false, cancelled: true }, false],
    [false, { success: true, failure: false, cancelled: false }, false],
  ])("if: %j with %j → %s", (condition, status, expected) => {
    expect(evaluateCondition(condition, { ...context, status })).toBe(expected);
  });
});
