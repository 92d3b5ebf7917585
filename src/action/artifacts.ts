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
import { checkArtifactFolder, type ArtifactSpec } from "./artifact-checks.ts";

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

export const ARTIFACT_FILES = {
  plan: "plan.json",
  result: "result.json",
  bundle: "checkpoint.bundle",
  review: "review.json",
  queue: "queue.json",
  queueBundle: "queue.bundle",
} as const;

/** JSON files larger than this are refused unread. */
export const MAX_JSON_BYTES = 4 * 1024 * 1024;
/** Bundles larger than this are refused unread (GitHub's artifacts can be far larger). */
export const MAX_BUNDLE_BYTES = 512 * 1024 * 1024;
/** A work artifact's zip: its two files and the zip's own overhead. */
export const MAX_WORK_ZIP_BYTES = MAX_BUNDLE_BYTES + MAX_JSON_BYTES + 64 * 1024;

/** The name of a work artifact's zip that the queue job hands on (`naruto-work-<item>-<n>.zip`). */
export const FORWARDED_LEG = /^naruto-work-[a-z0-9][a-z0-9._-]{0,62}-[1-9][0-9]{0,3}\.zip$/;

/** What each artifact may hold (src/action/artifact-checks.ts): nothing else is read. */
export const ARTIFACT_SPECS = {
  plan: { files: { [ARTIFACT_FILES.plan]: MAX_JSON_BYTES } },
  review: { files: { [ARTIFACT_FILES.review]: MAX_JSON_BYTES } },
  work: { files: { [ARTIFACT_FILES.result]: MAX_JSON_BYTES, [ARTIFACT_FILES.bundle]: MAX_BUNDLE_BYTES } },
  /** The queue job's record and bundle, and the zips of the legs it took, as it downloaded them. */
  queue: {
    files: { [ARTIFACT_FILES.queue]: MAX_JSON_BYTES, [ARTIFACT_FILES.queueBundle]: MAX_BUNDLE_BYTES },
    more: { pattern: FORWARDED_LEG, maxBytes: MAX_WORK_ZIP_BYTES, maxCount: 256 },
  },
} as const satisfies Record<string, ArtifactSpec>;

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
  /**
   * The job that wrote it, as the runner told that job: publish checks it against the work run's
   * jobs (a result is bound to its leg). Null outside a runner.
   */
  job: z.object({ run_id: z.number().int().positive(), run_attempt: z.number().int().min(1), name: z.string().max(300) }).nullable(),
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

/** What artifact `name` may hold (its spec, by name). */
export function artifactSpecOf(name: string): ArtifactSpec {
  if (name === PLAN_ARTIFACT) return ARTIFACT_SPECS.plan;
  if (name === REVIEW_ARTIFACT) return ARTIFACT_SPECS.review;
  if (name === QUEUE_ARTIFACT) return ARTIFACT_SPECS.queue;
  return ARTIFACT_SPECS.work;
}

/**
 * Reads `<folder>/<artifact>/<file>` as JSON of `schema`, once the artifact's folder passed the
 * artifact checks (only its own files, regular, under their caps: checkArtifactFolder). A
 * symlink, a file that is not a regular file, one over {@link MAX_JSON_BYTES}, bad JSON or the
 * wrong shape is `invalid`, with why.
 */
export async function readArtifactJson<T>(folder: string, artifact: string, file: string, schema: z.ZodType<T>): Promise<ArtifactRead<T>> {
  const checked = await checkArtifactFolder(join(folder, artifact), artifactSpecOf(artifact));
  if (checked.kind === "refused") return { kind: "invalid", reason: `${artifact} was refused: ${checked.reason}` };
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
