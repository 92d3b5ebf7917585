/**
 * Events and commands of the mission engine (docs/architecture.md). Events say what happened; commands
 * say what a driver must do next. Both are plain data so that the local driver and the GitHub
 * driver interpret the same decisions.
 */
import { z } from "zod";
import { plannedItemSchema, planSourceSchema, quotedTextSchema, tamperFindingSchema, VERDICTS } from "./document.ts";
import { baseCheckSchema, testFindingSchema, testReportSchema } from "./queue-checks.ts";

const at = z.string();

export type { PlannedItem } from "./document.ts";

const agentReport = {
  summary: z.string().nullable().optional(),
  cost_usd: z.number().nullable().optional(),
  tokens_in: z.number().nullable().optional(),
  tokens_out: z.number().nullable().optional(),
  model: z.string().nullable().optional(),
};

/**
 * Why an attempt failed in a way a retry would only repeat: a program it runs is not found (exit
 * 127), its CLI refused its credentials, its agent profile is not one naruto can run, or GitHub
 * refused to take its work by a rule of the repository that the next push would meet too.
 */
export const PERMANENT_CAUSES = ["not_found", "authentication", "config", "refused"] as const;
export type PermanentCause = (typeof PERMANENT_CAUSES)[number];

/**
 * What became of the work an attempt that did not finish left (a timeout, a crash, a cancel,
 * naruto's own failure): kept as `commit` on `ref` (`refs/naruto/attempts/<m>/<item>/<n>` on one
 * machine, the branch `refs/heads/naruto-attempts/…` on GitHub), or not kept, and why. Absent or
 * null: it left nothing to keep. The reason never says it: the mission's reason is made from this
 * (kept-work.ts), so nothing reads it back out of prose.
 */
export const keptWorkSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("kept"),
    ref: z.string(),
    commit: z.string(),
    /** What of it the item may not change (`path (rule)`): kept for a person, never integrated. */
    outside: z.array(z.string()),
  }),
  z.object({ kind: z.literal("not_kept"), why: z.string() }),
]);
export type KeptWork = z.infer<typeof keptWorkSchema>;

const work = keptWorkSchema.nullable().optional();

/** How an attempt ended, as its worker saw it. */
export const attemptOutcomeSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("checkpointed"), commit: z.string(), base: z.string(), changed: z.array(z.string()) }),
  z.object({ kind: z.literal("no_changes") }),
  z.object({ kind: z.literal("out_of_scope"), paths: z.array(z.string()) }),
  /** `output`: the end of what the agent (or the item's verify) printed, for the reason's last lines. */
  z.object({ kind: z.literal("failed"), reason: z.string(), work, output: z.string().optional() }),
  z.object({ kind: z.literal("timed_out"), reason: z.string(), work }),
  /**
   * Failed, and would fail the same way again (see PERMANENT_CAUSES): the item ends `failed` with
   * the reason and no retry starts; `retry_requested` still retries it once the cause is fixed.
   */
  z.object({ kind: z.literal("permanent"), cause: z.enum(PERMANENT_CAUSES), reason: z.string(), work, output: z.string().optional() }),
  /** The runner itself stopped (killed, machine lost): not counted against `max_attempts`. */
  z.object({ kind: z.literal("interrupted"), reason: z.string(), work }),
  /** The attempt changed what it may not (the user's repository, naruto's refs): never integrated nor retried. */
  z.object({ kind: z.literal("tampered"), reason: z.string(), work }),
]);
export type AttemptOutcome = z.infer<typeof attemptOutcomeSchema>;

export const integrationResultSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("integrated"), item: z.string(), attempt: z.number().int(), commit: z.string(), changed: z.array(z.string()) }),
  z.object({ kind: z.literal("conflicted"), item: z.string(), attempt: z.number().int(), paths: z.array(z.string()) }),
  z.object({ kind: z.literal("verify_failed"), item: z.string(), attempt: z.number().int(), output: z.string() }),
  /**
   * Suspected, but its candidate's verdict flipped (red, then green): blamed for nothing, not on
   * the queue; the checkpoint waits for the next batch.
   */
  z.object({ kind: z.literal("flaky"), item: z.string(), attempt: z.number().int(), candidate: z.string(), runs: z.array(z.boolean()), output: z.string() }),
]);
export type IntegrationResult = z.infer<typeof integrationResultSchema>;

export const missionEventSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("requested"),
    at,
    id: z.string(),
    task: z.string(),
    source: z.unknown(),
    base: z.object({ ref: z.string(), commit: z.string() }),
    queue_branch: z.string(),
    settings: z.unknown(),
    /** The request's own plan text, when it has one (see the mission's `plan_text`). */
    plan_text: z.string().nullable().optional(),
    /** Whose text the plan is, what was quoted as data, the config's commit, the pinned pull request (see the mission's fields). */
    plan_source: planSourceSchema.nullable().optional(),
    quoted: z.array(quotedTextSchema).optional(),
    config_commit: z.string().nullable().optional(),
    pull_request: z.object({ number: z.number().int(), head: z.string() }).nullable().optional(),
    /** What untrusted processes run in (the mission's `sandbox`). */
    sandbox: z.string().nullable().optional(),
    /** They run as root without a sandbox (`sandbox: none` chosen as root): see the mission's `agents_as_root`. */
    agents_as_root: z.boolean().optional(),
    /**
     * A review-only mission (kind `review`): the commits from `base.commit` to `head` are
     * reviewed by the arbiter; nothing is planned and no agent works.
     */
    review: z.object({ head: z.string() }).nullable().optional(),
  }),
  z.object({
    type: z.literal("planned"),
    at,
    title: z.string(),
    items: z.array(plannedItemSchema),
    proof: z.unknown(),
  }),
  /** Planning failed for good (invalid plan after the planner's retry, planner crashed). */
  z.object({
    type: z.literal("planning_failed"),
    at,
    reason: z.string(),
    /** The planner agent's last lines (redacted, bounded), when it ran and failed. */
    output_tail: z.array(z.string()).optional(),
  }),
  z.object({ type: z.literal("approved"), at, by: z.string().nullable() }),
  /**
   * The attempt's run was dispatched (`runner`: the run, when the dispatch gave it): it waits for
   * a runner, and its clock has not started. GitHub runs at most the account's concurrent-job
   * quota at once and queues the rest; `queue_timeout_ms` bounds the wait.
   */
  z.object({ type: z.literal("attempt_dispatched"), at, item: z.string(), attempt: z.number().int(), base: z.string(), runner: z.string().nullable() }),
  /**
   * The attempt's job started (locally: its agent's process; on GitHub: a runner took its job):
   * its clock starts (`item_timeout_ms`). `base` and `runner`, when given, replace what the
   * dispatch recorded (the job's own page is more precise than its run's).
   */
  z.object({
    type: z.literal("attempt_started"),
    at,
    item: z.string(),
    attempt: z.number().int(),
    base: z.string().nullable().optional(),
    runner: z.string().nullable(),
  }),
  /**
   * The attempt's agent (and its item's verify, when it has one) has exited: its agent slot is
   * free while naruto still checks and checkpoints what it left. Optional: a driver that does not
   * send it frees the slot at `attempt_finished`.
   */
  z.object({ type: z.literal("agent_exited"), at, item: z.string(), attempt: z.number().int() }),
  z.object({
    type: z.literal("attempt_finished"),
    at,
    item: z.string(),
    attempt: z.number().int(),
    outcome: attemptOutcomeSchema,
    ...agentReport,
    /** Its agent ran as root without a sandbox (see the mission's `agents_as_root`). */
    agents_as_root: z.boolean().optional(),
    /** The last lines the agent printed (redacted, bounded), for an attempt that did not end in a checkpoint. */
    output_tail: z.array(z.string()).optional(),
  }),
  z.object({
    type: z.literal("integrated"),
    at,
    queue_head: z.string(),
    verify_runs: z.number().int().min(0),
    results: z.array(integrationResultSchema),
    /** `queue.verify` on the base, when this batch ran it (the first batch, or a new base or command). */
    base_check: baseCheckSchema.nullable().optional(),
    /** What the tests did on the new head, when the verify writes a report. */
    report: testReportSchema.nullable().optional(),
    /** Tests this batch stopped running or skipped, against the head it was built on. */
    test_findings: z.array(testFindingSchema).optional(),
    /**
     * Integration stops, and why (the base is red; the verify flipped more than `queue.max_flips`):
     * every item not integrated is cancelled with the reason, and the mission fails.
     */
    halt: z.string().nullable().optional(),
  }),
  z.object({ type: z.literal("verify_failed"), at, item: z.string(), attempt: z.number().int(), output: z.string() }),
  /**
   * The queue was replayed onto the base branch as it is now (`naruto refresh`, `/naruto
   * refresh`): `results` per item replayed (its new queue
   * commit, or why it is out), `skipped` the items not replayed because a dependency fell out.
   */
  z.object({
    type: z.literal("refreshed"),
    at,
    base: z.object({ ref: z.string(), commit: z.string() }),
    /** The base it was refreshed from. */
    from: z.string(),
    queue_head: z.string(),
    verify_runs: z.number().int().min(0),
    results: z.array(integrationResultSchema),
    skipped: z.array(z.object({ item: z.string(), reason: z.string() })),
    base_check: baseCheckSchema.nullable(),
    report: testReportSchema.nullable(),
  }),
  z.object({
    type: z.literal("reviewed"),
    at,
    verdict: z.enum(VERDICTS),
    summary: z.string(),
    findings: z.array(
      z.object({
        severity: z.enum(["info", "warning", "error"]),
        rule: z.string(),
        message: z.string(),
        path: z.string().nullable(),
        line: z.number().int().nullable(),
      }),
    ),
  }),
  z.object({ type: z.literal("tick"), at }),
  /**
   * The tamper record found changes (docs/architecture.md). Each attempt a finding lists that is still
   * in flight will end `tampered`, whatever it does.
   */
  z.object({ type: z.literal("tampered"), at, findings: z.array(tamperFindingSchema).min(1) }),
  z.object({ type: z.literal("cancelled"), at, by: z.string().nullable() }),
  z.object({ type: z.literal("retry_requested"), at, target: z.string() }),
  /**
   * Nothing more can be done for the mission where it runs (GitHub refuses every new worker
   * branch: its default branch changed `.github/workflows/` since the mission's base): nothing new
   * starts, attempts in flight are cancelled, checkpoints already pushed still integrate, and what
   * is integrated is reviewed as usual. `reason` becomes the mission's.
   */
  z.object({ type: z.literal("stopped"), at, reason: z.string() }),
  /**
   * A refresh run was asked for (issue 37): onto `onto`, the base branch's head then; null: the
   * run asked for last ended without landing a refresh. Only one is under way per mission: while
   * one is, another is refused unless `handover` (the ending run asking for the next, a person
   * asking by command). refresh-event.ts.
   */
  z.object({ type: z.literal("refresh_requested"), at, onto: z.string().nullable(), handover: z.boolean() }),
  /**
   * The mission ended and its base branch is no longer at its base: `commit` is the branch's head
   * then. Recorded, not acted on: the driver asks for a refresh (`queue.refresh: on_push`) or the
   * comments name `/naruto refresh`. Cleared when a refresh lands. refresh-event.ts.
   */
  z.object({ type: z.literal("base_moved"), at, commit: z.string() }),
]);
export type MissionEvent = z.infer<typeof missionEventSchema>;
export type MissionEventType = MissionEvent["type"];

/** One attempt a driver must start. */
export interface AttemptOrder {
  readonly item: string;
  readonly attempt: number;
  /** The previous attempt's failure, for the agent's prompt (docs/architecture.md). */
  readonly previousFailure: string | null;
}

/** One checkpoint a driver must integrate. */
export interface CheckpointOrder {
  readonly item: string;
  readonly attempt: number;
  readonly commit: string;
  readonly base: string;
}

export type MissionCommand =
  | { readonly type: "plan" }
  | { readonly type: "start_attempts"; readonly attempts: readonly AttemptOrder[] }
  | { readonly type: "cancel_attempts"; readonly attempts: readonly { item: string; attempt: number }[] }
  | { readonly type: "integrate"; readonly checkpoints: readonly CheckpointOrder[] }
  | { readonly type: "review" }
  | { readonly type: "report" }
  | { readonly type: "finish"; readonly status: "done" | "failed" | "cancelled" };
