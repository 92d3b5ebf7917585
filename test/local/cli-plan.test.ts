/**
 * `naruto plan` and `naruto verify-proof` through the CLI (docs/architecture.md): the exact JSON
 * contract, exit codes, standard input, `--strict` and `--max-items`.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { checkPlan, verifyProof } from "../../src/plan/index.ts";
import { fakeCli } from "./cli-io.ts";

/** a→b is a declared conflict (b lists a); a×c is a conflict the planner orders (added). */
const PLAN = `version: 1
title: Conflicts, declared and added
items:
  - { id: a, title: Library, writes: [src/lib/] }
  - { id: b, title: X, writes: [src/lib/x.ts], after: [a] }
  - { id: c, title: Y, writes: [src/lib/y/] }
  - { id: d, title: Docs, writes: [docs/] }
`;

const INVALID = `version: 1
title: Broken
items:
  - { id: a, title: A, writes: [src/] }
  - { id: c, title: C, writes: [../outside], after: [zz] }
`;

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "naruto-cli-plan-"));
  await writeFile(join(dir, "plan.yml"), PLAN);
  await writeFile(join(dir, "invalid.yml"), INVALID);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function naruto(argv: string[], stdin?: string) {
  const cli = fakeCli(dir, stdin === undefined ? {} : { stdin });
  const code = await main(argv, cli.io);
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

function json(text: string): Record<string, unknown> {
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error(`not a JSON object: ${text}`);
  return Object.fromEntries(Object.entries(parsed));
}

describe("naruto plan --json", () => {
  it("prints exactly the §4 object for a plan with a declared and an added conflict", async () => {
    const r = await naruto(["plan", "plan.yml", "--json"]);
    expect(r.code).toBe(0);
    const out = json(r.stdout);
    expect(Object.keys(out)).toEqual(["ok", "items", "conflicts", "schedule", "proof", "errors"]);
    expect({ ...out, proof: undefined }).toEqual({
      ok: true,
      items: [
        { id: "a", after: [], added_after: [], rank: 2 },
        { id: "b", after: ["a"], added_after: [], rank: 1 },
        { id: "c", after: [], added_after: ["a"], rank: 1 },
        { id: "d", after: [], added_after: [], rank: 1 },
      ],
      conflicts: [
        { a: "a", b: "b", path: "src/lib/x.ts", order: "declared" },
        { a: "a", b: "c", path: "src/lib/y/", order: "added" },
      ],
      // a and d, then b and c: two units with four agents; the critical path a → b is two.
      schedule: { max_parallel: 4, makespan: 2, lower_bound: 2 },
      proof: undefined,
      errors: [],
    });
    // `proof` is the whole proof document, and it checks.
    const check = checkPlan(PLAN);
    expect(out.proof).toEqual(check.proof);
    if (!check.plan) throw new Error("the plan is valid");
    expect(verifyProof(check.plan, out.proof)).toEqual({ ok: true });
  });

  it("gives exit 1 and every error with item, field and message for an invalid plan", async () => {
    const r = await naruto(["plan", "invalid.yml", "--json"]);
    expect(r.code).toBe(1);
    const out = json(r.stdout);
    expect(out.ok).toBe(false);
    expect(out.proof).toBeNull();
    expect(out.errors).toEqual([
      { item: "c", field: "writes[0]", message: '".." leaves the repository' },
      { item: "c", field: "after[0]", message: 'unknown item "zz"' },
    ]);
  });

  it("names the item and field on stderr without --json", async () => {
    const r = await naruto(["plan", "invalid.yml"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('items[1] (id "c").after[0]: unknown item "zz"');
  });

  it("reads the plan from standard input for -", async () => {
    const r = await naruto(["plan", "-", "--json"], PLAN);
    expect(r.code).toBe(0);
    expect(json(r.stdout).conflicts).toHaveLength(2);
  });

  it("rejects with --strict a conflict the plan does not order itself", async () => {
    const r = await naruto(["plan", "plan.yml", "--json", "--strict"]);
    expect(r.code).toBe(1);
    const out = json(r.stdout);
    expect(out.ok).toBe(false);
    expect(out.errors).toEqual([{ item: "c", field: "after", message: expect.stringContaining('"a"') }]);
    expect(out.conflicts).toEqual([
      { a: "a", b: "b", path: "src/lib/x.ts", order: "declared" },
      { a: "a", b: "c", path: "src/lib/y/", order: "unordered" },
    ]);
  });

  it("applies --max-items both ways", async () => {
    const lower = await naruto(["plan", "plan.yml", "--json", "--max-items", "3"]);
    expect(lower.code).toBe(1);
    expect(json(lower.stdout).errors).toEqual([expect.objectContaining({ message: expect.stringMatching(/4 items.*3|3.*4 items/) })]);

    const many = { version: 1, title: "many", items: Array.from({ length: 1001 }, (_, i) => ({ id: `i${i}`, title: `i${i}`, writes: [`src/${i}.ts`] })) };
    const big = JSON.stringify(many);
    expect((await naruto(["plan", "-", "--json"], big)).code).toBe(1);
    expect((await naruto(["plan", "-", "--json", "--max-items", "2000"], big)).code).toBe(0);
  });

  it("refuses a --max-items that is not a whole number with exit 2", async () => {
    expect((await naruto(["plan", "plan.yml", "--max-items", "0"])).code).toBe(2);
  });
});

describe("naruto verify-proof", () => {
  it("accepts a fresh proof (or the whole plan --json output) and rejects a tampered or stale one", async () => {
    const planned = json((await naruto(["plan", "plan.yml", "--json"])).stdout);
    await writeFile(join(dir, "proof.json"), JSON.stringify(planned.proof));
    await writeFile(join(dir, "plan-output.json"), JSON.stringify(planned));
    expect((await naruto(["verify-proof", "plan.yml", "proof.json"])).code).toBe(0);
    expect((await naruto(["verify-proof", "plan.yml", "plan-output.json"])).code).toBe(0);

    // Tampered: the added conflict claimed to be declared.
    const tampered = JSON.parse(JSON.stringify(planned.proof).replace('"order":"added"', '"order":"declared"'));
    await writeFile(join(dir, "tampered.json"), JSON.stringify(tampered));
    const r = await naruto(["verify-proof", "plan.yml", "tampered.json"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("proof rejected");

    // Stale: the plan changed after the proof was made.
    await writeFile(join(dir, "edited.yml"), PLAN.replace("writes: [docs/]", "writes: [src/lib/z.ts]"));
    expect((await naruto(["verify-proof", "edited.yml", "proof.json"])).code).toBe(1);
  });
});
