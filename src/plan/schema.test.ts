import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defaultPlanLimits } from "./limits.ts";
import { itemIdProblem, planSchema } from "./schema.ts";

describe("itemIdProblem", () => {
  it.each([["users-api"], ["a"], ["0"], ["v1.2_x-y"], ["a".repeat(63)]])("accepts %j", (id) => {
    expect(itemIdProblem(id)).toBeNull();
  });

  it.each([[""], ["-a"], [".a"], ["A"], ["a b"], ["a/b"], ["a".repeat(64)], ["a..b"], ["a."], ["x.lock"], ["ü"]])("rejects %j", (id) => {
    expect(itemIdProblem(id)).not.toBeNull();
  });
});

describe("planSchema", () => {
  it("reads a whole plan into typed items", () => {
    const plan = planSchema(defaultPlanLimits()).parse({ items: [{ id: "a", writes: ["./src//a.ts"], estimate: "1h" }] });
    expect(plan).toMatchObject({ version: 1, title: "", items: [{ id: "a", title: "a", prompt: "a", estimate: 60, verify: null }] });
    expect(plan.items[0]?.writes.map((w) => w.path)).toEqual(["src/a.ts"]);
  });

  it("publishes as JSON Schema with the id pattern and no unknown fields", () => {
    const schema = JSON.stringify(z.toJSONSchema(planSchema(defaultPlanLimits()), { io: "input", unrepresentable: "any" }));
    expect(schema).toContain('"pattern":"^[a-z0-9][a-z0-9._-]{0,62}$"');
    expect(schema).toContain('"additionalProperties":false');
  });
});
