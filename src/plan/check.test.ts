import { describe, expect, it } from "vitest";
import { checkPlan } from "./check.ts";
import { defaultPlanLimits } from "./limits.ts";
import { verifyProof } from "./verify-proof.ts";

const PLAN = `
Please validate input everywhere.

\`\`\`naruto
version: 1
title: Validate input in every API handler
items:
  - id: schema
    writes: [src/api/schema.ts]
  - id: users-api
    writes: [src/api/users.ts, test/api/]
    after: [schema]
  - id: orders-api
    writes: [src/api/orders.ts, test/api/orders/]
    estimate: 10m
\`\`\`
`;

describe("checkPlan", () => {
  it("prints what `naruto plan --json` promises (README, the plan --json contract)", () => {
    const result = checkPlan(PLAN);
    expect(result).toMatchObject({
      ok: true,
      format: "markdown",
      errors: [],
      items: [
        { id: "schema", after: [], added_after: [] },
        { id: "users-api", after: ["schema"], added_after: [] },
        { id: "orders-api", after: [], added_after: ["users-api"] },
      ],
      conflicts: [{ a: "users-api", b: "orders-api", path: "test/api/orders/", order: "added" }],
      proof: { schema: "naruto.proof/v1", ok: true },
    });
    expect(Object.keys(result.conflicts[0] ?? {})).toEqual(["a", "b", "path", "order"]);
    expect(Object.keys(result.items[0] ?? {})).toEqual(["id", "after", "added_after"]);
    expect(result.plan?.title).toBe("Validate input in every API handler");
    expect(result.plan && result.proof && verifyProof(result.plan, result.proof)).toEqual({ ok: true });
  });

  it("takes an already parsed plan too", () => {
    const result = checkPlan({ version: 1, items: [{ id: "a", writes: ["x"] }] });
    expect(result).toMatchObject({ ok: true, format: null, items: [{ id: "a", after: [], added_after: [] }], conflicts: [] });
  });

  it("in strict mode reports each unordered pair as an error on the later item, with the proof", () => {
    const result = checkPlan(PLAN, { strict: true });
    expect(result).toMatchObject({
      ok: false,
      errors: [
        {
          item: "orders-api",
          index: 2,
          field: "after",
          message: expect.stringContaining('may run at the same time as "users-api" and both write "test/api/orders/"'),
        },
      ],
      items: [{ added_after: [] }, { added_after: [] }, { added_after: [] }],
      conflicts: [{ a: "users-api", b: "orders-api", order: "unordered" }],
      proof: { ok: false },
    });
    expect(result.plan).not.toBeNull();
  });

  it("returns every error and nothing else for an invalid plan", () => {
    const result = checkPlan("items:\n  - id: c\n    writes: [x]\n    after: [zz]\n  - id: c\n    writes: [y]\n");
    expect(result).toEqual({
      ok: false,
      plan: null,
      format: "yaml",
      errors: [
        { item: "c", index: 0, field: "after[0]", message: 'unknown item "zz"' },
        { item: "c", index: 1, field: "id", message: expect.stringContaining('duplicate id "c"') },
      ],
      items: [],
      conflicts: [],
      proof: null,
    });
  });

  it("returns syntax errors with their line", () => {
    const result = checkPlan("items: [");
    expect(result.ok).toBe(false);
    expect(result.errors[0]?.message).toMatch(/^line 1, column \d+: /);
  });

  it("uses the limits it is given", () => {
    const text = JSON.stringify({
      items: [
        { id: "a", writes: ["x"] },
        { id: "b", writes: ["y"] },
      ],
    });
    expect(checkPlan(text, { limits: { ...defaultPlanLimits(), maxItems: 1 } }).errors).toEqual([
      expect.objectContaining({ field: "items", message: expect.stringContaining("more than the limit of 1") }),
    ]);
  });
});
