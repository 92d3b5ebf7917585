/**
 * What the agent jobs (plan, work, review) and the queue job hand on to the publish job: one
 * artifact each, with fixed names and files. Untrusted code ran in every job that wrote one (an
 * agent, or the queue's verify command), so everything read back is untrusted: size-capped,
 * parsed with zod, and re-checked against the mission state and git.
 */
import { lstat, open } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { attemptOutcomeSchema } from "../mission/index.ts";

export const PLAN_ARTIFACT = "naruto-plan";
export const REVIEW_ARTIFACT = "naruto-review";
/** The queue job's result, for the publish job (src/action/integrate/queue-record.ts). */
export const QUEUE_ARTIFACT = "naruto-queue";
/** `naruto-work-<item>-<attempt>`: item ids are `[a-z0-9._-]`, which artifact names allow. */
export function workArtifactName(item: string, attempt: number): string {
  return `naruto-work-${item}-${attempt}`;
}

/**
 * The branch that keeps the work of an attempt that did not finish (timed out, crashed) on
 * GitHub, as `refs/naruto/attempts/…` keeps it on one machine: never integrated, deleted with the
 * mission's other branches after the retention. Its own top-level name, so it can clash neither
 * with the queue `naruto/<mission>` nor with a worker branch `naruto/<mission>--<item>`.
 */
export function partialWorkBranch(mission: string, item: string, attempt: number): string {
  return `naruto-attempts/${mission}/${item}/${attempt}`;
}

export const ARTIFACT_FILES = { plan: "plan.json", result: "result.json", bundle: "checkpoint.bundle", review: "review.json", queue: "queue.json", queueBundle: "queue.bundle" } as const;

/** JSON files larger than this are refused unread. */
export const MAX_JSON_BYTES = 4 * 1024 * 1024;

export const planArtifactSchema = z.object({
  schema: z.literal("naruto.plan-artifact/v1"),
  mission: z.string(),
  outcome: z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("plan"), text: z.string() }),
    z.object({ kind: z.literal("failed"), reason: z.string().max(20_000) }),
  ]),
});
export type PlanArtifact = z.infer<typeof planArtifactSchema>;

const nullableNumber = z.number().finite().nullable().optional();

/** The work job's result: the `attempt_finished` fields, plus the commits it names. */
export const workResultSchema = z.object({
  schema: z.literal("naruto.work-result/v1"),
  mission: z.string(),
  item: z.string(),
  attempt: z.number().int().min(1),
  outcome: attemptOutcomeSchema,
  summary: z.string().max(20_000).nullable().optional(),
  cost_usd: nullableNumber,
  tokens_in: nullableNumber,
  tokens_out: nullableNumber,
  model: z.string().max(200).nullable().optional(),
  /**
   * The checkpoint (for `checkpointed`), or the work an attempt that did not finish left (its
   * outcome's `work` names it); and the queue commit the attempt started from.
   */
  commit: z.string().nullable(),
  base: z.string().nullable(),
});
export type WorkResult = z.infer<typeof workResultSchema>;

export const reviewArtifactSchema = z.object({
  schema: z.literal("naruto.review-artifact/v1"),
  mission: z.string(),
  /** The queue head the review agent read. */
  queue_head: z.string(),
  /** The review agent's answer to each part of the diff, in order (empty: no review agent). */
  outputs: z.array(z.string()).max(1000),
});
export type ReviewArtifact = z.infer<typeof reviewArtifactSchema>;

export type ArtifactRead<T> = { readonly kind: "missing" } | { readonly kind: "invalid"; readonly reason: string } | { readonly kind: "ok"; readonly value: T };

/**
 * Reads `<folder>/<artifact>/<file>` as JSON of `schema`. A symlink, a file that is not a regular
 * file, one over {@link MAX_JSON_BYTES}, bad JSON or the wrong shape is `invalid`, with why.
 */
export async function readArtifactJson<T>(folder: string, artifact: string, file: string, schema: z.ZodType<T>): Promise<ArtifactRead<T>> {
  const path = join(folder, artifact, file);
  const stat = await lstat(path).catch(() => null);
  if (stat === null) return { kind: "missing" };
  if (!stat.isFile()) return { kind: "invalid", reason: `${artifact}/${file} is not a regular file` };
  if (stat.size > MAX_JSON_BYTES) return { kind: "invalid", reason: `${artifact}/${file} is larger than ${MAX_JSON_BYTES} bytes` };
  const handle = await open(path, "r");
  let text: string;
  try {
    text = (await handle.readFile()).subarray(0, MAX_JSON_BYTES).toString("utf8");
  } finally {
    await handle.close();
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: "invalid", reason: `${artifact}/${file} is not JSON` };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { kind: "invalid", reason: `${artifact}/${file}: ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}` };
  }
  return { kind: "ok", value: parsed.data };
}
