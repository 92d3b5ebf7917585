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
 * these), in a work run all of them; the ones left to a later run; and the record's lines that
 * name a leg publish does not know (a forgery: never taken).
 */
export function reconcileLegs<T extends LegRef>(input: {
  known: readonly T[];
  reported: readonly LegRef[] | null;
  integrate: boolean;
}): { take: T[]; left: T[]; unknown: LegRef[] } {
  const reported = input.reported ?? [];
  const take = input.integrate ? input.known.filter((k) => reported.some(same(k))) : [...input.known];
  const left = input.known.filter((k) => !take.some(same(k)));
  const unknown = reported.filter((r) => !input.known.some(same(r)));
  return { take, left, unknown };
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
