/**
 * What the queue learned about its verify command while it integrated (issue 37): the base's own
 * verification, the flips (a red run, then a green one on the same candidate), what the tests did
 * per batch when the verify writes a test report, and the findings that follows. Kept on the
 * mission for the report, the tracking comment and the arbiter; rendered, never read back as text.
 */
import { z } from "zod";

/** What a verify's JUnit report said (see src/queue/test-report.ts, which makes it). */
export const testReportSchema = z.object({
  tests: z.number().int().min(0),
  failed: z.number().int().min(0),
  skipped: z.number().int().min(0),
  files: z.array(z.object({ file: z.string(), tests: z.number().int().min(0), failed: z.number().int().min(0), skipped: z.number().int().min(0) })),
  failures: z.array(z.string()),
});
export type TestReportRecord = z.infer<typeof testReportSchema>;

/** `queue.verify` run once on the base commit, before the first batch (cached per base and command). */
export const baseCheckSchema = z.object({
  commit: z.string(),
  command: z.string(),
  green: z.boolean(),
  exit_code: z.number().int().nullable(),
  /** The end of its output, redacted. */
  output: z.string(),
  report: testReportSchema.nullable(),
  /**
   * Each run's verdict, in order: a red base is confirmed like a suspect before it stops the
   * mission; a green run among them is a flip, and the base counts as green.
   */
  runs: z.array(z.boolean()).default([]),
});
export type BaseCheck = z.infer<typeof baseCheckSchema>;

/** A candidate whose verify was red, then green: flaky there; the item it suspected was not blamed. */
export const flipSchema = z.object({
  at: z.string(),
  commit: z.string(),
  /** The suspect; null: the base itself flipped. */
  item: z.string().nullable(),
  attempt: z.number().int().nullable(),
  /** Green or not, run by run. */
  runs: z.array(z.boolean()),
});
export type Flip = z.infer<typeof flipSchema>;

/** One batch that moved the queue: what went on, and what its tests did on the new head. */
export const batchRecordSchema = z.object({
  at: z.string(),
  head: z.string(),
  items: z.array(z.string()),
  tests: z.object({ tests: z.number().int(), failed: z.number().int(), skipped: z.number().int() }).nullable(),
});
export type BatchRecord = z.infer<typeof batchRecordSchema>;

/**
 * Tests that stopped running: a batch ran fewer tests than the head it was built on, or skipped
 * more. `items`: the batch's items whose writes cover the files that lost tests (all of the
 * batch's items when none does); `files`: those files.
 */
export const testFindingSchema = z.object({
  at: z.string(),
  kind: z.enum(["fewer_tests", "more_skipped"]),
  head: z.string(),
  items: z.array(z.string()),
  files: z.array(z.string()),
  message: z.string(),
});
export type TestFinding = z.infer<typeof testFindingSchema>;

/** One refresh of the queue onto a base that moved. */
export const refreshRecordSchema = z.object({
  at: z.string(),
  from: z.string(),
  to: z.string(),
  head: z.string(),
  replayed: z.number().int(),
  /** Items out of the new queue, with why. */
  dropped: z.array(z.object({ item: z.string(), reason: z.string() })),
});
export type RefreshRecord = z.infer<typeof refreshRecordSchema>;

/** The queue's record of its checks, on the mission (missions stored before it read as empty). */
export const queueChecksShape = {
  base_check: baseCheckSchema.nullable().default(null),
  flips: z.array(flipSchema).default([]),
  batches: z.array(batchRecordSchema).default([]),
  /** What the tests did on the queue head (the base's report until a batch moved it). */
  report: testReportSchema.nullable().default(null),
  test_findings: z.array(testFindingSchema).default([]),
  refreshes: z.array(refreshRecordSchema).default([]),
  /** The refresh run asked for last, until it lands or ends (refresh-event.ts). */
  refresh_requested: z.object({ onto: z.string(), at: z.string() }).nullable().default(null),
  /**
   * The base branch's head when the mission ended past its base (`base_moved`), until a refresh
   * lands: what the tracking comment and the verdict say of a queue left on an old base.
   */
  base_moved: z.object({ commit: z.string(), at: z.string() }).nullable().default(null),
};
