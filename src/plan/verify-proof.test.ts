import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { orderPlan } from "./order.ts";
import { buildProof, type Proof } from "./proof.ts";
import { item, mustPlan, planArb, rawPlan } from "./test-utils.ts";
import type { Plan } from "./types.ts";
import { verifyProof } from "./verify-proof.ts";

const proofOf = (plan: Plan, strict = false): Proof => buildProof(plan, orderPlan(plan, { strict }));
/** The proof as it travels: JSON text, parsed back. */
const asJson = (proof: Proof): unknown => JSON.parse(JSON.stringify(proof));

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A proof as a JSON value (a Proof is one by construction). */
function toJson(value: unknown): Json {
  if (value === null || typeof value === "boolean" || typeof value === "number" || typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(toJson);
  if (typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJson(v)]));
  throw new Error(`not JSON: ${String(value)}`);
}

/** One single-field change to a JSON document: a new value at a leaf, or an array element removed or repeated. */
interface Tamper {
  readonly where: string;
  apply(doc: Json): Json;
}

type Key = string | number;

/** A copy of `doc` where `change` ran on the array or object holding `path`'s last key. */
function changed(doc: Json, path: readonly Key[], change: (holder: Json[] | { [key: string]: Json }, key: Key) => void): Json {
  const copy = structuredClone(doc);
  let holder: Json = copy;
  for (const key of path.slice(0, -1)) holder = childOf(holder, key);
  if (holder === null || typeof holder !== "object") throw new Error(`no container at ${path.join(".")}`);
  change(holder, path[path.length - 1]!);
  return copy;
}

function childOf(value: Json, key: Key): Json {
  if (Array.isArray(value) && typeof key === "number") return value[key] ?? null;
  if (value !== null && typeof value === "object" && !Array.isArray(value) && typeof key === "string") return value[key] ?? null;
  throw new Error(`cannot step into ${JSON.stringify(value)} with ${key}`);
}

function tampersOf(doc: Json, pool: readonly Json[]): Tamper[] {
  const out: Tamper[] = [];
  const walk = (value: Json, path: Key[]) => {
    if (Array.isArray(value)) {
      value.forEach((element, k) => {
        const inner = [...path, k];
        const splice = (f: (arr: Json[], i: number) => void) => (d: Json) =>
          changed(d, inner, (holder, i) => Array.isArray(holder) && typeof i === "number" && f(holder, i));
        out.push({ where: `remove ${inner.join(".")}`, apply: splice((arr, i) => arr.splice(i, 1)) });
        out.push({ where: `repeat ${inner.join(".")}`, apply: splice((arr, i) => arr.splice(i, 0, structuredClone(element))) });
        walk(element, inner);
      });
      return;
    }
    if (value !== null && typeof value === "object") {
      for (const [key, child] of Object.entries(value)) walk(child, [...path, key]);
    }
    if (path.length === 0) return;
    const replacements: Json[] = typeof value === "boolean" ? [!value] : value !== null && typeof value === "object" ? [null] : pool.filter((p) => p !== value);
    for (const replacement of replacements) {
      out.push({
        where: `${path.join(".")} = ${JSON.stringify(replacement)}`,
        apply: (d) =>
          changed(d, path, (holder, key) => {
            if (Array.isArray(holder)) holder[Number(key)] = replacement;
            else holder[String(key)] = replacement;
          }),
      });
    }
  };
  walk(doc, []);
  return out;
}

/** Plausible replacement values: other ids, other paths, other orders, junk. */
function poolOf(plan: Plan): Json[] {
  return [
    ...new Set<Json>([
      ...plan.items.map((i) => i.id),
      ...plan.items.flatMap((i) => i.writes.map((w) => w.path)),
      "declared",
      "added",
      "unordered",
      "zz",
      "",
      1,
    ]),
  ];
}

describe("verifyProof", () => {
  const plan = mustPlan(rawPlan(item("a", ["src/"]), item("b", ["src/x.ts"], ["a"]), item("c", ["src/y/"]), item("d", ["docs/"])));

  it("accepts the planner's proof, after a trip through JSON", () => {
    expect(verifyProof(plan, asJson(proofOf(plan)))).toEqual({ ok: true });
  });

  it("accepts every proof the planner makes for random plans", () => {
    fc.assert(
      fc.property(planArb({ maxItems: 12 }), (p) => {
        expect(verifyProof(p, asJson(proofOf(p)))).toEqual({ ok: true });
      }),
      { numRuns: 300 },
    );
  });

  it("rejects a proof that records an unordered pair (strict mode), with the reason", () => {
    const verdict = verifyProof(plan, asJson(proofOf(plan, true)));
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reasons).toEqual([expect.stringContaining("the plan is not safe: 1 conflicting pair may run at the same time")]);
  });

  it.each<[string, (proof: Proof) => unknown, string]>([
    ["not an object", () => "proof", "not a proof document"],
    ["an extra field", (p) => ({ ...p, extra: 1 }), "not a proof document"],
    ["another schema", (p) => ({ ...p, schema: "naruto.proof/v2" }), 'schema is "naruto.proof/v2"'],
    ["a wrong ok", (p) => ({ ...p, ok: false }), "ok is false"],
    ["a missing conflict", (p) => ({ ...p, conflicts: p.conflicts.slice(1) }), "missing conflict"],
    [
      "a fake conflict",
      (p) => ({ ...p, conflicts: [...p.conflicts, { a: "c", b: "d", path: "docs/", order: "added", edge: { from: "c", to: "d" } }] }),
      "do not overlap",
    ],
    ["a conflict listed twice", (p) => ({ ...p, conflicts: [p.conflicts[0], ...p.conflicts] }), "more than once"],
    ["a conflict on another path", (p) => ({ ...p, conflicts: p.conflicts.map((c) => ({ ...c, path: "src/" })) }), "the overlap is"],
    ["a declared pair called added", (p) => ({ ...p, conflicts: p.conflicts.map((c) => ({ ...c, order: "added" })) }), "already order it"],
    ["an added edge dropped", (p) => ({ ...p, items: p.items.map((i) => ({ ...i, added_after: [] })) }), "without the added edge"],
    ["an edge that closes a cycle", (p) => ({ ...p, items: p.items.map((i) => (i.id === "a" ? { ...i, added_after: ["b"] } : i)) }), "cycle"],
    ["other writes", (p) => ({ ...p, items: p.items.map((i) => (i.id === "d" ? { ...i, writes: ["doc/"] } : i)) }), "writes differ"],
  ])("rejects %s", (_name, tamper, reason) => {
    const verdict = verifyProof(plan, tamper(proofOf(plan)));
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reasons.join("\n")).toContain(reason);
  });

  it("rejects every single-field tampering of the planner's proofs", () => {
    fc.assert(
      fc.property(planArb({ maxItems: 8 }), fc.nat(), (p, pick) => {
        const doc = toJson(proofOf(p));
        const tampers = tampersOf(doc, poolOf(p));
        const tamper = tampers[pick % tampers.length]!;
        const verdict = verifyProof(p, tamper.apply(doc));
        expect(verdict.ok, tamper.where).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });

  it("rejects each possible single-field tampering of one proof", () => {
    const doc = toJson(proofOf(plan));
    const tampers = tampersOf(doc, poolOf(plan));
    expect(tampers.length).toBeGreaterThan(100);
    const accepted = tampers.filter((t) => verifyProof(plan, t.apply(doc)).ok).map((t) => t.where);
    expect(accepted).toEqual([]);
  });

  it("rejects a stale proof: the plan changed after the proof was made", () => {
    fc.assert(
      fc.property(planArb({ maxItems: 8 }), planArb({ maxItems: 8 }), (before, after) => {
        fc.pre(
          JSON.stringify(before.items.map((i) => [i.id, i.writes.map((w) => w.path), i.after])) !==
            JSON.stringify(after.items.map((i) => [i.id, i.writes.map((w) => w.path), i.after])),
        );
        const stale = proofOf(before);
        expect(verifyProof(after, asJson(stale)).ok).toBe(false);
        // Also when the digest is forged to match: the content still gives it away.
        expect(verifyProof(after, asJson({ ...stale, plan_digest: proofOf(after).plan_digest })).ok).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it("rejects a proof of an edited plan (one write added), naming the stale digest", () => {
    const edited = mustPlan(rawPlan(item("a", ["src/"]), item("b", ["src/x.ts"], ["a"]), item("c", ["src/y/"]), item("d", ["docs/", "src/z.ts"])));
    const verdict = verifyProof(edited, asJson(proofOf(plan)));
    expect(verdict.ok).toBe(false);
    if (!verdict.ok)
      expect(verdict.reasons).toEqual(expect.arrayContaining([expect.stringContaining("stale proof"), expect.stringContaining("missing conflict")]));
  });

  it("does not care about prompts, titles or estimates", () => {
    const reworded = mustPlan(
      rawPlan(item("a", ["src/"], [], { prompt: "new words", estimate: "2h" }), item("b", ["src/x.ts"], ["a"]), item("c", ["src/y/"]), item("d", ["docs/"])),
    );
    expect(verifyProof(reworded, asJson(proofOf(plan)))).toEqual({ ok: true });
  });
});
