/**
 * The independent proof checker (`naruto verify-proof`, docs/architecture.md). It shares only the path
 * normalizer (through the validated plan) and the digest definition with the planner: overlaps
 * are recomputed by a sorted sweep (not the trie), order by its own depth-first search and
 * BigInt reachability (not Kahn and bitset chunks). A proof passes only when it is exactly what
 * the plan implies and says the plan is safe.
 */
import { z } from "zod";
import { planDigest } from "./digest.ts";
import { PROOF_SCHEMA } from "./proof.ts";
import type { Plan } from "./types.ts";
import { sweepOverlaps } from "./verify-overlaps.ts";

export type ProofVerdict = { ok: true } | { ok: false; reasons: string[] };

const MAX_REASONS = 50;

const ids = z.array(z.string());
const proofSchema = z.strictObject({
  schema: z.string(),
  plan_digest: z.string(),
  ok: z.boolean(),
  items: z.array(z.strictObject({ id: z.string(), writes: ids, after: ids, added_after: ids })),
  conflicts: z.array(
    z.strictObject({
      a: z.string(),
      b: z.string(),
      path: z.string(),
      order: z.enum(["declared", "added", "unordered"]),
      edge: z.strictObject({ from: z.string(), to: z.string() }).nullable(),
    }),
  ),
});

/**
 * Checks a proof document (untrusted JSON) against a validated plan.
 *
 * @example verifyProof(plan, JSON.parse(proofText)) → { ok: false, reasons: ["stale proof: …"] }
 */
export function verifyProof(plan: Plan, proofJson: unknown): ProofVerdict {
  const parsed = proofSchema.safeParse(proofJson);
  if (!parsed.success) {
    return { ok: false, reasons: parsed.error.issues.map((i) => `not a proof document: ${i.path.join(".") || "(top)"}: ${i.message}`) };
  }
  const proof = parsed.data;
  const reasons: string[] = [];
  const fail = (reason: string) => reasons.push(reason);
  const items = plan.items;
  const n = items.length;
  const pos = new Map(items.map((item, i) => [item.id, i]));
  const same = (x: readonly string[], y: readonly string[]) => x.length === y.length && x.every((v, k) => v === y[k]);

  if (proof.schema !== PROOF_SCHEMA) fail(`schema is ${JSON.stringify(proof.schema)}, expected "${PROOF_SCHEMA}"`);
  if (proof.plan_digest !== planDigest(plan)) fail("stale proof: plan_digest does not match the plan (ids, writes or after changed)");
  if (proof.items.length !== n) fail(`the proof lists ${proof.items.length} items, the plan has ${n}`);

  // Declared edges from the plan; added edges from the proof, which must be well formed.
  const dependents: number[][] = items.map(() => []);
  const added: number[][] = items.map(() => []);
  items.forEach((item, i) => {
    const p = proof.items[i];
    for (const dep of item.after) dependents[pos.get(dep) ?? 0]?.push(i);
    if (p === undefined) return;
    if (p.id !== item.id) fail(`items[${i}] is "${p.id}", the plan has "${item.id}"`);
    if (p.writes.length !== item.writes.length || item.writes.some((w, k) => w.path !== p.writes[k]))
      fail(`items[${i}] ("${item.id}"): writes differ from the plan`);
    if (!same(p.after, item.after)) fail(`items[${i}] ("${item.id}"): after differs from the plan`);
    const list = p.added_after.map((dep) => pos.get(dep) ?? -1);
    if (list.some((j) => j < 0 || j === i)) fail(`items[${i}] ("${item.id}"): added_after names an unknown item or itself`);
    else if (list.some((j, k) => k > 0 && j <= list[k - 1]!)) fail(`items[${i}] ("${item.id}"): added_after is not in plan order without repeats`);
    else added[i] = list;
  });

  const reach = closures(dependents, added);
  if (reach === null) {
    fail("the added edges close a cycle with the declared ones");
    return verdict(reasons);
  }
  const has = (set: readonly bigint[], from: number, to: number) => !!(((set[from] ?? 0n) >> BigInt(to)) & 1n);
  const firstHop = (a: number, b: number) => (items[b]!.after.includes(items[a]!.id) ? b : dependents[a]!.find((d) => d === b || has(reach.declared, d, b)));

  const truth = sweepOverlaps(plan);
  const listed = new Set<number>();
  const addedListed = new Set<number>();
  let previous = -1;
  let unordered = 0;
  for (const [k, c] of proof.conflicts.entries()) {
    const [a, b] = [pos.get(c.a), pos.get(c.b)];
    const at = `conflicts[${k}] (${c.a}, ${c.b})`;
    if (a === undefined || b === undefined || a === b) {
      fail(`${at}: not two different items of the plan`);
      continue;
    }
    const id = Math.min(a, b) * n + Math.max(a, b);
    if (a * n + b <= previous) fail(`${at}: conflicts are not sorted by plan position of (a, b)`);
    previous = a * n + b;
    if (listed.has(id)) {
      fail(`${at}: the pair is listed more than once`);
      continue;
    }
    listed.add(id);
    const path = truth.get(id);
    if (path === undefined) {
      fail(`${at}: the items' writes do not overlap`);
      continue;
    }
    if (c.path !== path) fail(`${at}: path is "${c.path}", the overlap is "${path}"`);
    const edge = c.edge === null ? null : [pos.get(c.edge.from), pos.get(c.edge.to)];
    if (c.order === "declared") {
      if (!has(reach.declared, a, b)) fail(`${at}: "declared", but the plan's after edges do not order a before b`);
      else if (edge?.[0] !== a || edge[1] !== firstHop(a, b)) fail(`${at}: edge is not the first declared hop from a toward b`);
    } else if (c.order === "added") {
      if (has(reach.declared, a, b)) fail(`${at}: "added", but the plan's after edges already order it`);
      if (edge?.[0] !== a || edge[1] !== b || !added[b]!.includes(a)) fail(`${at}: "added" without the added edge a → b`);
      addedListed.add(a * n + b);
    } else {
      unordered++;
      if (c.edge !== null) fail(`${at}: an unordered pair has no edge`);
      if (has(reach.all, a, b) || has(reach.all, b, a)) fail(`${at}: "unordered", but the edges order it`);
    }
  }
  const missing = [...truth.keys()].filter((id) => !listed.has(id));
  for (const id of missing) fail(`missing conflict: "${items[Math.floor(id / n)]!.id}" and "${items[id % n]!.id}" overlap at "${truth.get(id)}"`);
  added.forEach((list, b) =>
    list.forEach((a) => {
      if (!addedListed.has(a * n + b)) fail(`added edge "${items[a]!.id}" → "${items[b]!.id}" orders no listed "added" conflict`);
    }),
  );
  const pairs = `${unordered} conflicting ${unordered === 1 ? "pair" : "pairs"}`;
  if (proof.ok !== (unordered === 0)) fail(`ok is ${proof.ok}, but ${pairs} ${unordered === 1 ? "is" : "are"} unordered`);
  if (unordered > 0) fail(`the plan is not safe: ${pairs} may run at the same time`);
  return verdict(reasons);
}

/**
 * Reachability as BigInt bitsets — bit j of `declared[i]` is set when item j waits for item i,
 * transitively, through declared edges; `all` also follows added edges. Null on a cycle.
 * Items are finished in depth-first post-order, so every item after all of its dependents.
 */
function closures(declared: readonly number[][], added: readonly number[][]): { declared: bigint[]; all: bigint[] } | null {
  const n = declared.length;
  const allOut: number[][] = declared.map((list) => [...list]);
  added.forEach((list, b) => list.forEach((a) => allOut[a]!.push(b)));
  const state = new Uint8Array(n); // 0 new, 1 on the path, 2 done
  const post: number[] = [];
  for (let root = 0; root < n; root++) {
    if (state[root] !== 0) continue;
    const stack: [number, number][] = [[root, 0]];
    state[root] = 1;
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      const next = allOut[frame[0]]![frame[1]++];
      if (next === undefined) {
        state[frame[0]] = 2;
        post.push(frame[0]);
        stack.pop();
      } else if (state[next] === 1) return null;
      else if (state[next] === 0) {
        state[next] = 1;
        stack.push([next, 0]);
      }
    }
  }
  const dec = new Array<bigint>(n).fill(0n);
  const all = new Array<bigint>(n).fill(0n);
  for (const v of post) {
    for (const d of declared[v]!) dec[v] = dec[v]! | dec[d]! | (1n << BigInt(d));
    for (const d of allOut[v]!) all[v] = all[v]! | all[d]! | (1n << BigInt(d));
  }
  return { declared: dec, all };
}

function verdict(reasons: string[]): ProofVerdict {
  if (reasons.length === 0) return { ok: true };
  const shown = reasons.slice(0, MAX_REASONS);
  if (reasons.length > MAX_REASONS) shown.push(`… and ${reasons.length - MAX_REASONS} more`);
  return { ok: false, reasons: shown };
}
