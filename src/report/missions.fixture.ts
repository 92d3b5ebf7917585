/**
 * Missions to render, built with the engine's builders and `step` (STYLE.md 9): a finished
 * mission that went through retries, a conflict ordering, a failure and a skip; a hostile one;
 * a huge one. Shared by the report tests.
 */
import type { Finding, Mission } from "../mission/index.ts";
import type { AttemptOutcome, MissionEvent, PlannedItem } from "../mission/index.ts";
import { step } from "../mission/index.ts";
import { at, item, missionAfter, requested } from "../../test/support/mission-builders.ts";

const BASE = "b".repeat(40);

function request(task: string, settings: Parameters<typeof requested>[0] = {}): MissionEvent {
  const e = requested(settings);
  return e.type === "requested" ? { ...e, task, sandbox: "bwrap 0.8.0" } : e;
}

function planEvent(title: string, items: PlannedItem[], proof: unknown): MissionEvent {
  return { type: "planned", at: at(1), title, items, proof };
}

function started(id: string, n: number, minutes: number): MissionEvent {
  return { type: "attempt_started", at: at(minutes), item: id, attempt: n, base: BASE, runner: `https://github.com/acme/demo/actions/runs/7/job/${id}-${n}` };
}

function ended(id: string, n: number, minutes: number, outcome: AttemptOutcome, usage: { cost?: number; tin?: number; tout?: number } = {}): MissionEvent {
  return {
    type: "attempt_finished",
    at: at(minutes),
    item: id,
    attempt: n,
    outcome,
    ...(usage.cost === undefined ? {} : { cost_usd: usage.cost }),
    ...(usage.tin === undefined ? {} : { tokens_in: usage.tin }),
    ...(usage.tout === undefined ? {} : { tokens_out: usage.tout }),
  };
}

function checkpoint(id: string, n: number, changed: string[]): AttemptOutcome {
  return { kind: "checkpointed", commit: `${id}-${n}`.padEnd(40, "c"), base: BASE, changed };
}

function landed(id: string, n: number, minutes: number, changed: string[]): MissionEvent {
  const commit = `${n}${id}`.replace(/[^a-f0-9]/g, "a").padEnd(40, "f");
  return { type: "integrated", at: at(minutes), queue_head: commit, verify_runs: 1, results: [{ kind: "integrated", item: id, attempt: n, commit, changed }] };
}

const PROOF = {
  schema: "naruto.proof/v1",
  plan_digest: "sha256:0000",
  ok: true,
  items: [],
  conflicts: [
    { a: "users-api", b: "orders-api", path: "src/api/shared.ts", order: "added", edge: { from: "users-api", to: "orders-api" } },
    { a: "schema", b: "users-api", path: "src/api/", order: "declared", edge: { from: "schema", to: "users-api" } },
    { a: 1, b: "broken entry" },
  ],
};

const USERS_CHANGED = [
  "src/api/users.ts",
  "src/api/shared.ts",
  "test/api/users/validation.test.ts",
  "test/api/users/fixtures/a-very-long-fixture-name-for-users.json",
];

/** The events of a mission with five items, up to the review. */
export function richEvents(): MissionEvent[] {
  return [
    request("Validate input in every API handler.\n\nUse zod; add tests.", { max_attempts: 2 }),
    planEvent(
      "Validate input in every API handler",
      [
        item("schema", [], { title: "Shared zod schemas", writes: ["src/api/schema.ts"] }),
        item("users-api", ["schema"], { title: "Validate users handler input", writes: ["src/api/users.ts", "src/api/shared.ts", "test/api/users/"] }),
        item("orders-api", ["schema"], {
          title: "Validate orders handler input",
          added_after: ["users-api"],
          writes: ["src/api/orders.ts", "src/api/shared.ts"],
        }),
        item("docs", [], { title: "Document the validation errors", writes: ["docs/api.md"] }),
        item("billing", ["orders-api"], { title: "Validate billing webhooks" }),
      ],
      PROOF,
    ),
    started("schema", 1, 2),
    started("docs", 1, 2),
    ended("schema", 1, 5, checkpoint("schema", 1, ["src/api/schema.ts"]), { cost: 0.12, tin: 12_000, tout: 3_400 }),
    landed("schema", 1, 6, ["src/api/schema.ts"]),
    started("users-api", 1, 6),
    ended("users-api", 1, 8, { kind: "failed", reason: "the agent crashed (exit 3)" }, { cost: 0.05 }),
    started("users-api", 2, 9),
    ended("users-api", 2, 14, checkpoint("users-api", 2, USERS_CHANGED), { cost: 0.31, tin: 40_000, tout: 9_000 }),
    landed("users-api", 2, 15, USERS_CHANGED),
    started("orders-api", 1, 15),
    ended("orders-api", 1, 18, { kind: "out_of_scope", paths: ["README.md"] }),
    ended("docs", 1, 33, { kind: "timed_out", reason: "no result after 30 min" }),
    started("orders-api", 2, 34),
    ended("orders-api", 2, 37, { kind: "out_of_scope", paths: ["README.md", "package.json"] }),
    started("docs", 2, 37),
    ended("docs", 2, 40, checkpoint("docs", 2, ["docs/api.md"])),
    landed("docs", 2, 41, ["docs/api.md"]),
  ];
}

const FINDINGS: Finding[] = [
  {
    severity: "error",
    rule: "item_failed",
    message: 'item "orders-api" is out_of_scope: changed paths it may not change: README.md, package.json',
    path: null,
    line: null,
  },
  { severity: "warning", rule: "item_skipped", message: 'item "billing" was skipped: dependency "orders-api" failed (out_of_scope)', path: null, line: null },
  { severity: "info", rule: "review", message: "Consider sharing the error format | and @team-review <b>bold</b>", path: "src/api/users.ts", line: 42 },
];

/** The rich mission after its review: changes requested. */
export function reviewedMission(): Mission {
  return missionAfter([
    ...richEvents(),
    { type: "reviewed", at: at(45), verdict: "request_changes", summary: "Changes requested: 2 items not integrated.", findings: FINDINGS },
  ]);
}

/** The rich mission while `docs` and `orders-api` still run. */
export function runningMission(): Mission {
  return missionAfter(richEvents().slice(0, 15));
}

/** A mission whose request, plan title, item title and reasons try to break the markdown. */
export function hostileMission(): Mission {
  const hostile = 'x"]; click n0 href "javascript:alert(1)" `rm -rf` <img src=x onerror=alert(1)> @everyone #1\nline2 | pipe [link](http://evil)';
  return missionAfter([
    request("<img src=x> @everyone please\n<script>alert(1)</script>\n```\n@org/team #12", { max_attempts: 1 }),
    planEvent(hostile, [item("a", [], { title: hostile }), item("b", ["a"], { title: ']]]}}}"""```' })], {
      schema: "naruto.proof/v1",
      ok: true,
      conflicts: [],
    }),
    started("a", 1, 2),
    ended("a", 1, 3, { kind: "failed", reason: "@everyone <img src=x> `code` | pipe" }),
  ]);
}

/** `n` items with long titles; the first few are under way, one is integrated. */
export function hugeMission(n: number): Mission {
  const items = Array.from({ length: n }, (_, i) => {
    const id = `item-${String(i).padStart(4, "0")}`;
    return item(id, i > 0 ? [`item-${String(i - 1).padStart(4, "0")}`] : [], { title: `${"Refactor a rather long-named module ".repeat(6)}${i}` });
  });
  let m = missionAfter([requested(), planEvent("A very large plan", items, { schema: "naruto.proof/v1", ok: true, conflicts: [] })]);
  m = step(m, started("item-0000", 1, 2)).mission;
  m = step(m, ended("item-0000", 1, 3, checkpoint("item-0000", 1, ["src/item-0000/x.ts"]))).mission;
  return step(m, landed("item-0000", 1, 4, ["src/item-0000/x.ts"])).mission;
}

/** A finished mission with `n` error findings. */
export function manyFindingsMission(n: number): Mission {
  const findings: Finding[] = Array.from({ length: n }, (_, i) => ({
    severity: "error",
    rule: "review",
    message: `Problem number ${i}: ${"this handler does not validate its input ".repeat(4)}`,
    path: `src/module-${i}/handler.ts`,
    line: i + 1,
  }));
  return missionAfter([
    requested(),
    planEvent("Small", [item("a")], { schema: "naruto.proof/v1", ok: true, conflicts: [] }),
    ended("a", 1, 3, checkpoint("a", 1, ["src/a/x.ts"])),
    landed("a", 1, 4, ["src/a/x.ts"]),
    { type: "reviewed", at: at(5), verdict: "block", summary: "Many problems.", findings },
  ]);
}
