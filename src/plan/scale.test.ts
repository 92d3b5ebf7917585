import { describe, expect, it } from "vitest";
import { checkPlan } from "./check.ts";
import { defaultPlanLimits } from "./limits.ts";
import { verifyProof } from "./verify-proof.ts";

/**
 * 10,000 items with 5 paths each in a realistic tree: own files, own test subtrees, a module
 * index shared by about seven items, and declared chains through each module. About 8,500
 * different items are the later one of some pair, so the planner's reachability runs in more
 * than one chunk. Timing is for `npm run bench`; this checks that it completes and is right.
 */
function bigPlan(n: number) {
  const modules = 1500;
  const items = Array.from({ length: n }, (_, i) => {
    const dir = `packages/p${(i % modules) % 40}/src/m${i % modules}`;
    return {
      id: `item-${i}`,
      writes: [`${dir}/f${i}.ts`, `${dir}/g${i}.ts`, `${dir}/index.ts`, `test/p${i % 40}/t${i}/`, `docs/items/${i}.md`],
      after: i >= modules && i % 4 === 0 ? [`item-${i - modules}`] : [],
    };
  });
  return JSON.stringify({ version: 1, title: "big", items });
}

describe("a 10,000-item plan", () => {
  it("is checked, ordered and proven, and the independent checker agrees", () => {
    const result = checkPlan(bigPlan(10_000), { limits: { ...defaultPlanLimits(), maxItems: 10_000 } });
    expect(result.errors).toEqual([]);
    expect(result.ok).toBe(true);
    const declared = result.conflicts.filter((c) => c.order === "declared").length;
    const added = result.conflicts.filter((c) => c.order === "added").length;
    expect(declared).toBeGreaterThan(0);
    expect(added).toBeGreaterThan(0);
    expect(new Set(result.conflicts.map((c) => c.b)).size).toBeGreaterThan(8192);
    expect(result.conflicts.every((c) => /\/index\.ts$/.test(c.path))).toBe(true);
    expect(result.plan && result.proof && verifyProof(result.plan, result.proof)).toEqual({ ok: true });
  });
});
