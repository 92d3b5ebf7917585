/**
 * The mission document (docs/architecture.md): everything naruto knows about one request, stored in git
 * and read back through {@link parseMission}. It is the only state; comments and reports are
 * rendered from it.
 */
import { z } from "zod";
import { ITEM_STATUSES, MISSION_STATUSES } from "./status.ts";
import { queueChecksShape } from "./queue-checks.ts";

export const MISSION_SCHEMA = "naruto.mission/v1";

/** `limits.queue_timeout`'s default: how long an attempt may wait for a runner. */
export const DEFAULT_QUEUE_TIMEOUT_MS = 2 * 60 * 60_000;

/** How an attempt stands. `dispatched`: asked for, not yet seen running. */
export const ATTEMPT_STATUSES = [
  "dispatched",
  "running",
  "checkpointed",
  "integrating",
  "integrated",
  "no_changes",
  "failed",
  "timed_out",
  "out_of_scope",
  "conflicted",
  "verify_failed",
  "interrupted",
  "cancelled",
  "tampered",
] as const;
export type AttemptStatus = (typeof ATTEMPT_STATUSES)[number];

const attemptSchema = z.object({
  n: z.number().int().min(1),
  status: z.enum(ATTEMPT_STATUSES),
  /** The queue commit the attempt started from. */
  base: z.string().nullable(),
  /** The checkpoint commit on `naruto/<mission>--<item>`. */
  checkpoint: z.string().nullable(),
  changed: z.array(z.string()),
  reason: z.string().nullable(),
  summary: z.string().nullable(),
  cost_usd: z.number().nullable(),
  tokens_in: z.number().nullable(),
  tokens_out: z.number().nullable(),
  model: z.string().nullable(),
  /** Where the attempt ran: a local pid, an Actions run or job URL. */
  runner: z.string().nullable(),
  dispatched_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  /**
   * Set while the attempt runs when something other than naruto changed what it watches
   * (a `tampered` event): however the attempt then ends, it ends `tampered` with this reason.
   */
  tampered: z.string().nullable().default(null),
  /** When its agent (and its item's verify) exited, while the attempt still ran (`agent_exited`). */
  exited_at: z.string().nullable().default(null),
  /** Its agent's last lines (redacted, bounded) when it did not end in a checkpoint; stored before it: none. */
  output_tail: z.array(z.string()).default([]),
});
export type Attempt = z.infer<typeof attemptSchema>;

/**
 * One change the tamper record found (docs/architecture.md): `what` is a ref, `HEAD`, or a file of the
 * repository's git folder or the user's home, with its value before and after (null: absent).
 * `blame`: `agents` when agents ran without the sandbox meanwhile (naruto cannot tell which one:
 * `attempts` lists every attempt that ran), `not_naruto` for naruto's own refs moved by anyone
 * else, `user` for the user's own refs, HEAD or git files while the sandbox kept agents out,
 * `forged_artifact` for an artifact on GitHub that is not the work of the leg it is named for (or
 * a queue record that names a leg that did not end): refused, nothing of it used (`after`: its
 * digest, or what it claimed).
 */
export const tamperFindingSchema = z.object({
  at: z.string(),
  what: z.string(),
  before: z.string().nullable(),
  after: z.string().nullable(),
  blame: z.enum(["agents", "not_naruto", "user", "forged_artifact"]),
  attempts: z.array(z.string()),
  /** What naruto did about it: put its own ref back, or nothing (the user's refs are never touched). */
  action: z.string().nullable(),
});
export type TamperFinding = z.infer<typeof tamperFindingSchema>;

/** An item as planned: the plan's fields with its added edges and rank (the `planned` event). */
export const plannedItemSchema = z.object({
  id: z.string(),
  title: z.string(),
  prompt: z.string(),
  writes: z.array(z.string()),
  reads: z.array(z.string()),
  after: z.array(z.string()),
  added_after: z.array(z.string()),
  agent: z.string(),
  verify: z.string().nullable(),
  estimate: z.number(),
  readonly: z.boolean(),
  rank: z.number(),
  /** The plan's `tests:` (`may_weaken`: it may delete or skip tests); stored before it: null. */
  tests: z.enum(["may_weaken"]).nullable().default(null),
});
export type PlannedItem = z.infer<typeof plannedItemSchema>;

const itemSchema = plannedItemSchema.extend({
  status: z.enum(ITEM_STATUSES),
  /** Why the item is not (yet) integrated: the failure, the failed dependency, the cancel. */
  reason: z.string().nullable(),
  /** Attempts the item may make; `retry_requested` raises it. */
  max_attempts: z.number().int().min(0),
  attempts: z.array(attemptSchema),
  /** The item's commit on the queue once integrated. */
  commit: z.string().nullable(),
  changed: z.array(z.string()),
});
export type MissionItem = z.infer<typeof itemSchema>;

const settingsSchema = z.object({
  max_parallel: z.number().int().min(1),
  max_attempts: z.number().int().min(1),
  /** Most time an attempt's job may run, from when it started (not from its dispatch). */
  item_timeout_ms: z.number().int().min(1),
  /**
   * Most time an attempt may wait for a runner before its job starts (runners queue jobs beyond
   * the account's concurrent-job quota); missions stored before it read as two hours.
   */
  queue_timeout_ms: z.number().int().min(1).default(DEFAULT_QUEUE_TIMEOUT_MS),
  mission_timeout_ms: z.number().int().min(1),
  batch: z.number().int().min(1),
  approval: z.boolean(),
  max_cost_usd: z.number().nullable(),
  strict: z.boolean(),
});
export type MissionSettings = z.infer<typeof settingsSchema>;

const findingSchema = z.object({
  severity: z.enum(["info", "warning", "error"]),
  rule: z.string(),
  message: z.string(),
  path: z.string().nullable(),
  line: z.number().int().nullable(),
});
export type Finding = z.infer<typeof findingSchema>;

export const VERDICTS = ["approve", "request_changes", "block"] as const;
export type VerdictKind = (typeof VERDICTS)[number];

const verdictSchema = z.object({
  verdict: z.enum(VERDICTS),
  summary: z.string(),
  findings: z.array(findingSchema),
});
export type Verdict = z.infer<typeof verdictSchema>;

const sourceSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("local"), cwd: z.string() }),
  z.object({
    kind: z.literal("github"),
    repo: z.string(),
    issue: z.number().int(),
    comment_id: z.number().int().nullable(),
    actor: z.string(),
    /** The numeric id of the account that asked (its permission was checked by it); absent: not recorded. */
    actor_id: z.number().int().optional(),
  }),
]);
export type MissionSource = z.infer<typeof sourceSchema>;

/**
 * Whose text the plan is (docs/architecture.md "Who may instruct"). `comment`: the ```naruto block of
 * the command's comment; `issue`: the block in the body of the issue (or pull request) the
 * command is on, by an author who may instruct; `file`: a plan file of the config (schedules);
 * `review_threads`: made by naruto from a pull request's review threads (`/naruto fix-review`);
 * `planner`: the planner agent writes it. `author`: the login of the text's author, when a
 * person wrote it.
 */
export const planSourceSchema = z.object({
  kind: z.enum(["comment", "issue", "file", "review_threads", "planner"]),
  author: z.string().nullable(),
});
export type PlanSource = z.infer<typeof planSourceSchema>;

/** A text quoted into the request as data only: its author may not instruct naruto. */
export const quotedTextSchema = z.object({
  source: z.enum(["issue", "pull_request"]),
  author: z.string().nullable(),
  /** The author's permission when the request was accepted; null: unknown (a deleted account). */
  permission: z.string().nullable(),
});
export type QuotedText = z.infer<typeof quotedTextSchema>;

/**
 * What a mission does. `run`: plan, agents, queue, review (docs/architecture.md). `review`: the arbiter
 * alone on commits that exist already (`/naruto review` on a pull request): no plan and no
 * items; the base is where the reviewed commits start, the queue head the last of them, and the
 * mission starts in `reviewing`.
 */
export const MISSION_KINDS = ["run", "review"] as const;
export type MissionKind = (typeof MISSION_KINDS)[number];

export const missionSchema = z.object({
  schema: z.literal(MISSION_SCHEMA),
  id: z.string().regex(/^m-[a-z0-9]{4,32}$/),
  /** Missions stored before this field existed read as `run`. */
  kind: z.enum(MISSION_KINDS).default("run"),
  status: z.enum(MISSION_STATUSES),
  reason: z.string().nullable(),
  task: z.string(),
  source: sourceSchema,
  base: z.object({ ref: z.string(), commit: z.string() }),
  queue: z.object({ branch: z.string(), head: z.string(), verify_runs: z.number().int().min(0), ...queueChecksShape }),
  settings: settingsSchema,
  plan_title: z.string().nullable(),
  /**
   * The request's own plan (a fenced `naruto` block), kept until a plan job reads it; null: the
   * planner agent plans. Missions stored before this field existed read as null.
   */
  plan_text: z.string().nullable().default(null),
  /** Whose text the plan is; null: not recorded (missions stored before it, local runs). */
  plan_source: planSourceSchema.nullable().default(null),
  /** Texts quoted to the agents as data only (never a plan, never a command); stored before it: none. */
  quoted: z.array(quotedTextSchema).default([]),
  /**
   * The commit whose config every job of the mission reads: the default branch's head when the
   * command was accepted (never a pull request's head). Null (missions stored before it, local
   * runs): the base commit.
   */
  config_commit: z.string().nullable().default(null),
  /**
   * The pull request the command was on, and its head pinned when the command was accepted: a
   * later push changes nothing of the mission. Null: not on a pull request (or stored before it).
   */
  pull_request: z.object({ number: z.number().int(), head: z.string() }).nullable().default(null),
  /** The no-overlap proof (`naruto.proof/v1`), checked again before work starts. */
  proof: z.unknown().nullable(),
  items: z.array(itemSchema),
  verdict: verdictSchema.nullable(),
  /** What the tamper record found while the mission ran; missions stored before it read as none. */
  tampering: z.array(tamperFindingSchema).default([]),
  /** What untrusted processes ran in: `bwrap 0.8.0`, or `none (…why)`; null: not recorded. */
  sandbox: z.string().nullable().default(null),
  /**
   * Some of them ran as root without a sandbox (`sandbox: none` chosen by a naruto running as
   * root): nothing but the tamper record stood between them and the machine, so the arbiter
   * caps the verdict (docs/architecture.md). Missions stored before it read as false.
   */
  agents_as_root: z.boolean().default(false),
  created_at: z.string(),
  updated_at: z.string(),
  /** Events applied so far: a store save is a compare-and-swap on the document this counts. */
  seq: z.number().int().min(0),
});
export type Mission = z.infer<typeof missionSchema>;

/** The stored mission is not a mission document naruto can read. */
export class MissionFormatError extends Error {
  override readonly name = "MissionFormatError";
}

/** Reads a stored mission document, checking its shape. */
export function parseMission(json: unknown): Mission {
  const result = missionSchema.safeParse(json);
  if (!result.success) {
    const first = result.error.issues[0];
    const where = first ? first.path.join(".") || "(root)" : "(root)";
    throw new MissionFormatError(
      `the mission document is not ${MISSION_SCHEMA}: ${where}: ${first?.message ?? "invalid"}; ` +
        "it was written by another naruto version or edited by hand",
    );
  }
  return result.data;
}

/** Attempts that count against `max_attempts` (an interrupted runner is not the agent's fault). */
export function attemptsUsed(item: MissionItem): number {
  let used = 0;
  for (const a of item.attempts) if (a.status !== "interrupted" && a.status !== "cancelled") used++;
  return used;
}

export function attemptsLeft(item: MissionItem): number {
  return Math.max(item.max_attempts - attemptsUsed(item), 0);
}

export function currentAttempt(item: MissionItem): Attempt | undefined {
  return item.attempts.at(-1);
}
