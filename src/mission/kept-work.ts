/**
 * The words a mission's reason gives to the work an attempt that did not finish left (pure). The
 * outcome carries it as data (`KeptWork`); only here does it become text, once, for people.
 */
import type { AttemptOutcome, KeptWork } from "./events.ts";

/** `refs/heads/x` → `the branch x (0123456789ab)`; any other ref → `ref (0123456789ab)`. */
export function keptPlace(work: { readonly ref: string; readonly commit: string }): string {
  const branch = work.ref.startsWith("refs/heads/") ? work.ref.slice("refs/heads/".length) : null;
  return `${branch === null ? work.ref : `the branch ${branch}`} (${work.commit.slice(0, 12)})`;
}

/** What became of the left work, as a clause (`its partial work is kept at …`); "" when it left none. */
export function keptWorkClause(work: KeptWork | null | undefined): string {
  if (!work) return "";
  if (work.kind === "not_kept") return `its partial work was not kept: ${work.why}`;
  const outside =
    work.outside.length === 0 ? "" : ` (it changed what the item may not: ${work.outside.slice(0, 5).join(", ")}${work.outside.length > 5 ? ", …" : ""})`;
  return `its partial work is kept at ${keptPlace(work)}${outside}`;
}

/** The reason an outcome gives, with what became of its work and the output's end after it. */
export function outcomeReason(o: Extract<AttemptOutcome, { reason: string }>): string {
  const clause = keptWorkClause(o.work);
  const output = (o.kind === "failed" || o.kind === "permanent") && o.output !== undefined ? `\n${o.output}` : "";
  return `${o.reason}${clause === "" ? "" : `; ${clause}`}${output}`;
}
