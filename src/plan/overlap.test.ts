import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findConflicts } from "./overlap.ts";
import { normalizePath, overlapOf, pathKey, type RepoPath } from "./paths.ts";
import { planArb } from "./test-utils.ts";

function paths(...written: string[]): RepoPath[] {
  return written.map((p) => {
    const r = normalizePath(p);
    if (!r.ok) throw new Error(r.message);
    return r.value;
  });
}

function conflicts(sets: string[][]): [number, number, string][] {
  return findConflicts(sets.map((s) => paths(...s))).map((c) => [c.a, c.b, c.path.path]);
}

/** The all-pairs oracle: every pair of items, every pair of their writes. */
function bruteForce(sets: readonly (readonly RepoPath[])[]): [number, number, string][] {
  const out: [number, number, string][] = [];
  for (let a = 0; a < sets.length; a++) {
    for (let b = a + 1; b < sets.length; b++) {
      let best: string | null = null;
      for (const p of sets[a]!)
        for (const q of sets[b]!) {
          const o = overlapOf(p, q);
          if (o !== null && (best === null || o.key.join("\0") < best)) best = o.key.join("\0");
        }
      if (best === null) continue;
      const key = best.split("\0").join("/");
      const spelled = sets[a]!.find((p) => pathKey(p) === key) ?? sets[b]!.find((p) => pathKey(p) === key);
      out.push([a, b, spelled?.path ?? "?"]);
    }
  }
  return out;
}

describe("findConflicts", () => {
  it.each<[string, string[][], [number, number, string][]]>([
    ["disjoint files", [["src/a.ts"], ["src/b.ts"]], []],
    ["the same file", [["src/a.ts"], ["src/a.ts"]], [[0, 1, "src/a.ts"]]],
    ["a file in a subtree", [["src/"], ["src/x/y.ts"]], [[0, 1, "src/x/y.ts"]]],
    ["a subtree in a subtree", [["src/x/"], ["src/"]], [[0, 1, "src/x/"]]],
    ["whole components only", [["src/a"], ["src/ab"], ["src/a.ts"]], []],
    ["case variants", [["src/A.ts"], ["SRC/a.ts"]], [[0, 1, "src/A.ts"]]],
    [
      "case variants, spelled as the first item writes it",
      [["src/"], ["SRC/a.ts"], ["src/A.ts"]],
      [
        [0, 1, "SRC/a.ts"],
        [0, 2, "src/A.ts"],
        [1, 2, "SRC/a.ts"],
      ],
    ],
    [
      "the whole repository",
      [["."], ["a"], ["b/c/"]],
      [
        [0, 1, "a"],
        [0, 2, "b/c/"],
      ],
    ],
    ["an item's own nested writes", [["src/", "src/a.ts"], ["docs/"]], []],
    [
      "one pair, many overlaps: the first in component order",
      [
        ["z/", "a/b/", "a/c"],
        ["a/", "z/q"],
      ],
      [[0, 1, "a/b/"]],
    ],
    [
      "a pair once though both overlap both ways",
      [
        ["a/", "b/x"],
        ["a/y", "b/"],
      ],
      [[0, 1, "a/y"]],
    ],
    ["a read-only item", [[], ["x"]], []],
    [
      "three items on one file",
      [["f"], ["f"], ["f"]],
      [
        [0, 1, "f"],
        [0, 2, "f"],
        [1, 2, "f"],
      ],
    ],
  ])("%s", (_name, sets, expected) => {
    expect(conflicts(sets)).toEqual(expected);
  });

  it("agrees with the all-pairs oracle on random plans (pairs, paths and their spelling)", () => {
    fc.assert(
      fc.property(planArb({ maxItems: 14 }), (plan) => {
        const sets = plan.items.map((i) => i.writes);
        expect(findConflicts(sets).map((c) => [c.a, c.b, c.path.path])).toEqual(bruteForce(sets));
      }),
      { numRuns: 400 },
    );
  });
});
