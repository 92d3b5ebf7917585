/**
 * Which legs of a work run have ended, and which artifact of that run is each leg's own, from
 * what GitHub says of the run (its jobs with their steps, its artifacts) and the mission state —
 * never from an artifact's presence alone (issue 32). Any process that holds a job's
 * `ACTIONS_RUNTIME_TOKEN` can upload any name into that job's run while the job runs, so an
 * artifact named for a leg is that leg's only when the leg's own upload step put it there:
 *
 * - the leg's job (`work <mission> <item>#<n>`, the latest run attempt) has completed, its step
 *   `naruto upload` succeeded, and the artifact was created while that step ran (the template
 *   uploads with `overwrite: true`, so an earlier upload under the name was replaced by it);
 * - a leg whose job still works is left alone — unless an artifact carries its name before its
 *   upload step started, which no leg of naruto's does: that artifact is a forgery;
 * - an artifact named for no leg of this run that is in flight (another run's attempt, an item
 *   the mission does not have) is a forgery too.
 *
 * Pure: a function of the state and of GitHub's answers. Downloading and unpacking are
 * src/action/integrate/take-legs.ts's.
 */
import type { RunArtifact, WorkflowJob } from "../../github/index.ts";
import { runIdOf, workLegName } from "../../github-driver/index.ts";
import type { Mission } from "../../mission/index.ts";
import { workArtifactName } from "../artifacts.ts";

/** The name the template gives every job's artifact upload step (templates/naruto.yml). */
export const UPLOAD_STEP = "naruto upload";

export interface LegJob {
  readonly id: number;
  readonly name: string;
  readonly runAttempt: number;
  readonly url: string | null;
  readonly conclusion: string | null;
}

export type LegView =
  /** Its job ended and its own upload step left this artifact. */
  | { readonly kind: "ended"; readonly item: string; readonly attempt: number; readonly artifact: RunArtifact; readonly job: LegJob }
  /** Its job ended without an artifact of its own: the attempt failed with `reason`. */
  | { readonly kind: "missing"; readonly item: string; readonly attempt: number; readonly reason: string; readonly job: LegJob }
  /** Still working (or uploading right now): a later run takes it. */
  | { readonly kind: "working"; readonly item: string; readonly attempt: number };

/** An artifact of the run that is not the work of the leg it is named for. */
export interface Forgery {
  readonly artifact: RunArtifact;
  readonly runId: number;
  readonly reason: string;
}

export interface LegsInput {
  readonly mission: Mission;
  readonly runId: number;
  /**
   * Which attempts the run was dispatched for, when the run's own jobs read them (a work run's
   * queue and publish); null: every attempt in flight whose runner is this run (an integrate run).
   */
  readonly dispatched: readonly { readonly item: string; readonly attempt: number }[] | null;
  readonly jobs: readonly WorkflowJob[];
  readonly artifacts: readonly RunArtifact[];
}

const WORK_ARTIFACT = /^naruto-work-(.+)-([1-9][0-9]*)$/;

/** Seconds since the epoch of GitHub's whole-second times (null when absent or unreadable). */
function seconds(iso: string | null | undefined): number | null {
  if (iso === null || iso === undefined) return null;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : null;
}

/** The attempts in flight that are legs of this run in the state's view (before asking GitHub anything). */
export function legsInFlight(input: Pick<LegsInput, "mission" | "runId" | "dispatched">): { readonly item: string; readonly attempt: number }[] {
  const found: { item: string; attempt: number }[] = [];
  for (const item of input.mission.items) {
    for (const attempt of item.attempts) {
      if (attempt.status !== "dispatched" && attempt.status !== "running") continue;
      const runner = runIdOf(attempt.runner);
      const ours =
        input.dispatched === null
          ? runner === input.runId
          : (runner === input.runId || runner === null) && input.dispatched.some((d) => d.item === item.id && d.attempt === attempt.n);
      if (ours) found.push({ item: item.id, attempt: attempt.n });
    }
  }
  return found;
}

/** The legs of run `runId` the state already records as ended (taken, failed or timed out by some run of the mission). */
export function legsSettled(mission: Mission, runId: number): { readonly item: string; readonly attempt: number }[] {
  return mission.items.flatMap((item) =>
    item.attempts
      .filter((a) => a.status !== "dispatched" && a.status !== "running" && runIdOf(a.runner) === runId)
      .map((a) => ({ item: item.id, attempt: a.n })),
  );
}

export function viewLegs(input: LegsInput): { legs: LegView[]; forgeries: Forgery[] } {
  const { mission, runId } = input;
  const legs: LegView[] = [];
  const forgeries: Forgery[] = [];
  const claimed = new Set<number>();
  const forged = (artifact: RunArtifact, reason: string) => {
    claimed.add(artifact.id);
    forgeries.push({ artifact, runId, reason });
  };
  for (const base of legsInFlight(input)) {
    const view = bindLeg({ ...input, ...base }, forged);
    if (view.kind === "ended") claimed.add(view.artifact.id);
    legs.push(view);
  }
  // Work artifacts the state gives to no leg of this run in flight: nobody's work.
  for (const artifact of input.artifacts) {
    const match = WORK_ARTIFACT.exec(artifact.name);
    if (match === null || claimed.has(artifact.id) || artifact.expired) continue;
    const item = mission.items.find((i) => i.id === match[1]);
    const attempt = item?.attempts.find((a) => a.n === Number(match[2]));
    // That leg's, and no longer in flight (a runner not recorded: GitHub gave no run id at dispatch).
    if (attempt !== undefined && (runIdOf(attempt.runner) === runId || attempt.runner === null)) continue;
    forged(artifact, attempt === undefined ? `the mission has no attempt ${match[1]}#${match[2]}` : `${match[1]}#${match[2]} did not run in run ${runId}`);
  }
  return { legs, forgeries };
}

/** One leg in flight: what GitHub says of its job and of the artifact under its name. */
function bindLeg(input: LegsInput & { readonly item: string; readonly attempt: number }, forged: (artifact: RunArtifact, reason: string) => void): LegView {
  const { runId, item, attempt } = input;
  const base = { item, attempt };
  const leg = `${item}#${attempt}`;
  const name = workArtifactName(item, attempt);
  const named = input.artifacts.filter((a) => a.name === name && !a.expired);
  const artifact = named.at(-1);
  if (named.length > 1) {
    for (const a of named) forged(a, `run ${runId} holds ${named.length} artifacts named ${name}: none is taken`);
    return { kind: "working", ...base };
  }
  const found = input.jobs.find((j) => j.name === workLegName(input.mission.id, item, attempt));
  if (found === undefined) {
    if (artifact !== undefined) forged(artifact, `no job of run ${runId} is ${leg}'s leg: nothing of that leg ran`);
    return { kind: "working", ...base };
  }
  const job: LegJob = { id: found.id, name: found.name, runAttempt: found.runAttempt, url: found.url, conclusion: found.conclusion };
  const upload = found.steps.find((s) => s.name === UPLOAD_STEP);
  const uploadStarted = upload !== undefined && (upload.status === "in_progress" || upload.status === "completed");
  if (found.status !== "completed") {
    if (artifact !== undefined && !uploadStarted) forged(artifact, `${leg}'s leg is still at work (it has not reached its upload step)`);
    return { kind: "working", ...base };
  }
  const ended = `the work job ended (${found.conclusion ?? "no conclusion"})`;
  const see = job.url ? ` (see ${job.url})` : "";
  if (upload === undefined || upload.conclusion !== "success") {
    if (artifact !== undefined)
      forged(
        artifact,
        `${leg}'s leg did not upload it: its upload step ${upload === undefined ? "never ran" : `ended ${upload.conclusion ?? "without a conclusion"}`}`,
      );
    return { kind: "missing", ...base, job, reason: `${ended} without uploading its result${see}` };
  }
  if (artifact === undefined) return { kind: "missing", ...base, job, reason: `${ended} without a result${see}` };
  const created = seconds(artifact.createdAt);
  const from = seconds(upload.startedAt);
  const to = seconds(upload.completedAt);
  if (created === null || from === null || to === null || created < from || created > to) {
    forged(
      artifact,
      `it was created at ${artifact.createdAt ?? "an unknown time"}, not while ${leg}'s upload step ran (${upload.startedAt ?? "?"} to ${upload.completedAt ?? "?"})`,
    );
    return { kind: "missing", ...base, job, reason: `${ended}, and the artifact under its name is not the one its upload step made${see}` };
  }
  return { kind: "ended", ...base, artifact, job };
}
