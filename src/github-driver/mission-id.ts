import { createHash } from "node:crypto";

/**
 * The mission id of a `/naruto` comment: the same comment always gives the same id, so a
 * redelivered webhook or a re-run job finds the mission it already made instead of making a
 * second one (its `requested` event is then a duplicate).
 *
 * @example missionIdFor("acme/demo", 123456) → "m-3f0c9a1b2e4d"
 */
export function missionIdFor(repo: string, commentId: number): string {
  const digest = createHash("sha256").update(`naruto-mission\0${repo.toLowerCase()}\0${commentId}`).digest("hex");
  return `m-${digest.slice(0, 12)}`;
}

/**
 * The run id an attempt's `runner` names: an Actions run URL (`…/actions/runs/123`), or `run 123`
 * when the server returned the id without a URL.
 */
export function runIdOf(runner: string | null): number | null {
  const match = runner === null ? null : (/\/actions\/runs\/(\d+)(?:[/?#]|$)/.exec(runner) ?? /^run (\d+)$/.exec(runner));
  return match ? Number(match[1]) : null;
}

/**
 * A leg of a work run as the workflow template names it (`work m-1a2b3c alpha#1`): the job's name
 * is all a `workflow_job` event and the jobs API give of it.
 */
export function workLegName(mission: string, item: string, attempt: number): string {
  return `work ${mission} ${item}#${attempt}`;
}

/** The inputs of an integrate run (templates/naruto.yml): the legs of work run `runId` that ended so far. */
export function integrateRunInputs(mission: string, runId: number): { mission: string; phase: "integrate"; run: string } {
  return { mission, phase: "integrate", run: String(runId) };
}
