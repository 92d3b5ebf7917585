/**
 * The parts of the mission's no-overlap proof (`naruto.proof/v1`, docs/architecture.md) a report shows.
 * The mission stores the proof as opaque JSON; it is read defensively here, so a report of an
 * odd or older proof shows what it can instead of failing.
 */
import { z } from "zod";

export interface ProofConflictSummary {
  /** Ordered before `b`. */
  readonly a: string;
  readonly b: string;
  /** The overlapping path. */
  readonly path: string;
  /** `declared` (the plan's own `after` edges order the pair), `added` (the planner did), or another word. */
  readonly order: string;
}

export interface ProofSummary {
  /** The proof's own claim; null when it makes none. */
  readonly ok: boolean | null;
  readonly conflicts: readonly ProofConflictSummary[];
  /** Conflict entries that could not be read. */
  readonly unreadable: number;
}

const proofShape = z.object({
  schema: z.literal("naruto.proof/v1"),
  ok: z.boolean().optional(),
  conflicts: z.array(z.unknown()).optional(),
});

const conflictShape = z.object({ a: z.string(), b: z.string(), path: z.string(), order: z.string() });

/** The proof's summary, or null when `proof` is not a `naruto.proof/v1` document. */
export function readProof(proof: unknown): ProofSummary | null {
  const doc = proofShape.safeParse(proof);
  if (!doc.success) return null;
  const conflicts: ProofConflictSummary[] = [];
  let unreadable = 0;
  for (const c of doc.data.conflicts ?? []) {
    const parsed = conflictShape.safeParse(c);
    if (parsed.success) conflicts.push(parsed.data);
    else unreadable++;
  }
  return { ok: doc.data.ok ?? null, conflicts, unreadable };
}
