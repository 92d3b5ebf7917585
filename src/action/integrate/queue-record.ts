/**
 * The queue job's result (`naruto-queue/queue.json`, with `queue.bundle`): what it built and how
 * each verification went, for the publish job. The queue job ran the repository's code (the
 * queue's verify command), so nothing here is believed as such: publish rebuilds the queue from
 * the checkpoints it checked itself and only takes from the record what it cannot compute
 * without running that code — the verdict of the verify command on each candidate, by commit id
 * — and the committer time, so that its build is byte for byte the queue job's.
 */
import { z } from "zod";
import { integrationResultSchema, testReportSchema } from "../../mission/index.ts";
import { ARTIFACT_FILES, QUEUE_ARTIFACT, readArtifactJson } from "../artifacts.ts";

const sha = z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/);

export const queueRecordSchema = z.object({
  schema: z.literal("naruto.queue/v1"),
  mission: z.string(),
  /** The queue head the build started from. */
  start_head: sha,
  /** The committer time of every queue commit it wrote (seconds since the epoch). */
  committer_time: z.number().int().min(0),
  /** The work attempts whose artifacts it took (an integrate run's publish job takes these, no others). */
  entries: z
    .array(z.object({ item: z.string(), attempt: z.number().int().min(1) }))
    .max(256)
    .optional(),
  /** The checkpoints it integrated, in order. */
  checkpoints: z.array(z.object({ item: z.string(), attempt: z.number().int().min(1), commit: sha, base: sha })).max(10_000),
  /**
   * Every run of `queue.verify`, in order: the candidate, its exit code (null: killed or never
   * started), its output's tail, and the test report it wrote when `queue.verify_report` asks
   * for one. A candidate may run more than once (the base, a suspect's confirmations).
   */
  verify: z
    .array(
      z.object({
        commit: sha,
        exit_code: z.number().int().nullable(),
        output: z.string().max(64 * 1024),
        report: z
          .discriminatedUnion("kind", [
            z.object({ kind: z.literal("none") }),
            z.object({ kind: z.literal("unreadable"), reason: z.string().max(4096) }),
            z.object({ kind: z.literal("read"), report: testReportSchema }),
          ])
          .optional(),
      }),
    )
    .max(100_000),
  /** The queue head it ended at (the start head when nothing was integrated). */
  head: sha,
  /** Per checkpoint, what became of it. */
  results: z.array(integrationResultSchema).max(10_000),
  /**
   * A refresh run: the base branch's head it replayed the queue onto, and what came of it
   * (`head` is then the refreshed queue's head; `results` stay empty: publish rebuilds them).
   */
  refresh: z
    .object({
      onto: z.object({ ref: z.string(), commit: sha }),
      kind: z.enum(["unchanged", "halted", "refreshed"]),
      reason: z
        .string()
        .max(16 * 1024)
        .nullable(),
    })
    .optional(),
});
export type QueueRecord = z.infer<typeof queueRecordSchema>;

/** The queue job's record in `folder`, when there is a valid one for `mission` (untrusted, as above). */
export async function readQueueRecord(folder: string, mission: string): Promise<QueueRecord | null> {
  const read = await readArtifactJson(folder, QUEUE_ARTIFACT, ARTIFACT_FILES.queue, queueRecordSchema);
  return read.kind === "ok" && read.value.mission === mission ? read.value : null;
}
