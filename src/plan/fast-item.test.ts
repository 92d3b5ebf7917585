import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createFastItemParser } from "./fast-item.ts";
import { defaultPlanLimits } from "./limits.ts";
import { planItemSchema } from "./schema.ts";
import type { PlanLimits } from "./types.ts";

// A small prompt limit, so that "too long" is reachable; protected paths refused or allowed.
const limitsArb: fc.Arbitrary<PlanLimits> = fc.constantFrom(
  { ...defaultPlanLimits(), maxPromptChars: 12 },
  { ...defaultPlanLimits(), maxPromptChars: 12, allowProtected: true },
);

const validPath = fc.constantFrom(
  "src/a.ts",
  "SRC/A.ts",
  "src/a.ts",
  "test/api/",
  "./src//b.ts",
  "src/x/../y.ts",
  ".",
  "/",
  "caf\u00e9.md",
  ".github/",
  ".github/workflows/ci.yml",
  ".github/naruto.yml",
);
const invalidPath = fc.constantFrom("../x", "/etc/passwd", "C:/x", "a\\b", "a\u0000b", ".git/config", "");
const anyValue = fc.constantFrom<unknown>(null, undefined, 0, 7, true, "", {}, []);

/** Mostly valid (so that whole items often are), sometimes anything at all. */
function mostly<T>(valid: fc.Arbitrary<T>, invalid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 12, arbitrary: valid }, { weight: 1, arbitrary: invalid }, { weight: 1, arbitrary: anyValue });
}

const pathsArb = mostly(fc.array(validPath, { maxLength: 4 }), fc.array(fc.oneof(validPath, invalidPath, anyValue), { minLength: 1, maxLength: 3 }));
const textArb = mostly(fc.constantFrom("Title", " x ", "a".repeat(12)), fc.constantFrom("  ", "", "a".repeat(13)));

/** Raw items as an author or a planner agent might write them, valid or not in every field. */
const rawItemArb = fc
  .record(
    {
      id: mostly(fc.constantFrom("a", "users-api", "x.y_z", "a".repeat(63)), fc.constantFrom("A", "-a", "a..b", "a.", "a.lock", "a/b", "a".repeat(64))),
      title: textArb,
      prompt: textArb,
      writes: pathsArb,
      reads: pathsArb,
      after: mostly(
        fc.array(fc.constantFrom("a", "b", "b", "zz"), { maxLength: 4 }),
        fc.array(fc.oneof(fc.constant("a"), anyValue), { minLength: 1, maxLength: 2 }),
      ),
      agent: mostly(fc.constantFrom("default", "fast"), fc.constant("")),
      verify: mostly(fc.constant("npm test"), fc.constant("")),
      estimate: mostly(
        fc.constantFrom<string | number>("10m", "1h30m", "90s", " 5 ", 3, 2.5, 0),
        fc.constantFrom<unknown>("soon", "", "-1", -1, 1e9, Number.NaN, Infinity),
      ),
      readonly: mostly(fc.boolean(), fc.constantFrom("yes", 1)),
    },
    { requiredKeys: [] },
  )
  .chain((item) =>
    // Now and then a field that does not exist.
    fc.oneof({ weight: 10, arbitrary: fc.constant(item) }, { weight: 1, arbitrary: fc.constant({ ...item, write: ["src/"] }) }),
  );

const schemas = new Map<PlanLimits, ReturnType<typeof planItemSchema>>();

/** What the schema makes of an item: the item, or null when it refuses it. */
function viaZod(limits: PlanLimits, raw: unknown): unknown {
  const schema = schemas.get(limits) ?? planItemSchema(limits);
  schemas.set(limits, schema);
  const parsed = schema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

describe("the fast item path", () => {
  it("returns exactly what zod returns, or stands aside, on random valid and invalid items", () => {
    let taken = 0;
    fc.assert(
      fc.property(limitsArb, rawItemArb, (limits, raw) => {
        const fast = createFastItemParser(limits)(raw);
        if (fast === null) return;
        taken++;
        const zod = viaZod(limits, raw);
        expect(fast).toStrictEqual(zod);
        expect(Object.keys(fast)).toEqual(Object.keys(zod as object)); // the JSON output's field order
      }),
      { numRuns: 5000 },
    );
    // Most random items are invalid somewhere; enough valid ones must reach the comparison.
    expect(taken).toBeGreaterThan(100);
  });

  it("takes the items zod accepts when they are written plainly", () => {
    const plainItemArb = fc.record(
      {
        id: fc.constantFrom("a", "users-api"),
        title: fc.constantFrom("Title", " x ", "a".repeat(12)),
        prompt: fc.constant("Do it"),
        writes: fc.array(fc.constantFrom("src/a.ts", "SRC/A.ts", "test/api/", "./src//b.ts", ".", "caf\u00e9.md"), { minLength: 1, maxLength: 4 }),
        reads: fc.array(fc.constantFrom("src/a.ts", ".github/workflows/ci.yml"), { maxLength: 2 }),
        after: fc.array(fc.constantFrom("b", "c", "c"), { maxLength: 3 }),
        agent: fc.constant("fast"),
        verify: fc.constant("npm test"),
        estimate: fc.constantFrom<string | number>("10m", 3),
        readonly: fc.constant(false),
      },
      { requiredKeys: ["id", "writes"] },
    );
    fc.assert(
      fc.property(limitsArb, plainItemArb, (limits, raw) => {
        const fast = createFastItemParser(limits)(raw);
        expect(fast).not.toBeNull();
        expect(fast).toStrictEqual(viaZod(limits, raw));
      }),
      { numRuns: 1000 },
    );
  });

  it.each<[string, unknown]>([
    ["an unknown field", { id: "a", writes: ["x"], depends_on: ["b"] }],
    ["an own __proto__ field, as JSON.parse makes it", JSON.parse('{"id": "a", "writes": ["x"], "__proto__": {}}')],
    ["an object that is not a plain one", Object.assign(new (class Item {})(), { id: "a", writes: ["x"] })],
    ["null where a field may be left out", { id: "a", writes: ["x"], agent: null }],
    ["a read-only item with writes", { id: "a", writes: ["x"], readonly: true }],
    ["an item without writes", { id: "a" }],
    // biome-ignore lint/suspicious/noSparseArray: the hole is what this case is about
    ["a hole in a list", { id: "a", writes: ["x", , "y"] }],
  ])("leaves %s to zod", (_name, raw) => {
    expect(createFastItemParser(defaultPlanLimits())(raw)).toBeNull();
  });

  it("takes an item without a prototype, as zod does", () => {
    const raw = Object.assign(Object.create(null) as object, { id: "a", writes: ["x"] });
    const limits = defaultPlanLimits();
    expect(createFastItemParser(limits)(raw)).toStrictEqual(viaZod(limits, raw));
  });
});
