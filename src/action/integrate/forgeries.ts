/**
 * What publish makes of the legs it found ended and of the queue job's record (issue 32): the
 * record can never add a leg — it only reports on legs publish knows — and every artifact that is
 * not its leg's work, and every record line that names a leg publish does not know, is named:
 * in the job's log, and in the mission's tamper record (`forged_artifact`), which the tracking
 * comment, the report and the arbiter show. Pure.
 */
import type { MissionEvent, TamperFinding } from "../../mission/index.ts";
import type { Forgery } from "./legs.ts";

export interface LegRef {
  readonly item: string;
  readonly attempt: number;
}

const same = (a: LegRef) => (b: LegRef) => a.item === b.item && a.attempt === b.attempt;

/**
 * The legs to record: in an integrate run those the queue job took too (its verdicts are for
 * these), in a work run all of them; the ones left to a later run; the record's lines naming a
 * leg another run of the mission recorded meanwhile (`settled`: the work run's own publish and
 * an integrate run's can both find a leg ended, and the first to save records it — nothing of
 * it is taken twice); and the record's lines that name a leg publish does not know (a forgery:
 * never taken).
 */
export function reconcileLegs<T extends LegRef>(input: {
  known: readonly T[];
  reported: readonly LegRef[] | null;
  integrate: boolean;
  /** Legs of this run the state already records as ended. */
  settled: readonly LegRef[];
}): { take: T[]; left: T[]; stale: LegRef[]; unknown: LegRef[] } {
  const reported = input.reported ?? [];
  const take = input.integrate ? input.known.filter((k) => reported.some(same(k))) : [...input.known];
  const left = input.known.filter((k) => !take.some(same(k)));
  const other = reported.filter((r) => !input.known.some(same(r)));
  const stale = other.filter((r) => input.settled.some(same(r)));
  const unknown = other.filter((r) => !input.settled.some(same(r)));
  return { take, left, stale, unknown };
}

export function describeForgery(f: Forgery): string {
  return `${f.artifact.name} of run ${f.runId} was refused: ${f.reason}`;
}

/** The tamper findings for what was refused, as one `tampered` event; null when nothing was. */
export function forgeryEvent(input: {
  at: string;
  forgeries: readonly Forgery[];
  unknownEntries: readonly LegRef[];
  runId: number | null;
}): MissionEvent | null {
  const findings: TamperFinding[] = input.forgeries.map((f) => ({
    at: input.at,
    what: `artifact ${f.artifact.name} of run ${f.runId}`,
    before: null,
    after: f.artifact.digest ?? `artifact id ${f.artifact.id}`,
    blame: "forged_artifact",
    attempts: [],
    action: `${f.reason}; nothing of it was used`,
  }));
  if (input.unknownEntries.length > 0) {
    const named = input.unknownEntries.map((e) => `${e.item}#${e.attempt}`).join(", ");
    findings.push({
      at: input.at,
      what: `queue.json of run ${input.runId ?? "?"}`,
      before: null,
      after: `names ${named}`,
      blame: "forged_artifact",
      attempts: [],
      action: `the queue job's record names ${named}, which did not end as a leg this run takes; the record cannot add a leg, nothing of it was used`,
    });
  }
  return findings.length === 0 ? null : { type: "tampered", at: input.at, findings };
}
