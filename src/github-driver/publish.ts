/**
 * What a mission shows on GitHub, always rendered from the stored mission (never from the event
 * that just happened, so a skipped or lost update is repaired by the next one): the tracking
 * comment on the issue, the queue pull request `naruto/<mission>` → base, and at the end the
 * verdict comment on that pull request with a check run on the queue head.
 *
 * A review-only mission (`/naruto review`) has no queue pull request: the pull request it reviews
 * is where it was asked, so its verdict comment goes there, and its check run on that pull
 * request's head (the mission's queue head).
 */
import type { CheckConclusion, PullRequest } from "../github/index.ts";
import type { Mission } from "../mission/index.ts";
import { trackingComment, trackingMarker, verdictComment, verdictMarker } from "../report/index.ts";
import { codeSpan, inlineText } from "../report/index.ts";
import { narutoAuthors, type DriverDeps } from "./deps.ts";

type Publish = Pick<DriverDeps, "github" | "botLogin" | "runUrl" | "log" | "resultCi" | "ciGitHub">;

/** The mission came from GitHub (a comment on an issue or pull request). */
export function issueOf(mission: Mission): number | null {
  return mission.source.kind === "github" ? mission.source.issue : null;
}

/**
 * Opens the queue pull request once the queue holds something (GitHub refuses a pull request
 * without commits), or updates the open one; returns it, or null while the queue is empty.
 * Opened with the token that starts workflows when there is one (`ciGitHub`), so that the
 * repository's CI runs on it; with the naruto App, the App opens it (`open: true` there), and
 * the workflow's jobs only update it.
 */
export async function ensureQueuePullRequest(deps: Publish, mission: Mission, options: { open?: boolean } = {}): Promise<PullRequest | null> {
  const { github } = deps;
  if (mission.kind === "review") return null;
  const head = mission.queue.branch;
  const found = await github.findPullRequest({ head, base: mission.base.ref });
  const body = queuePullBody(mission);
  if (found !== null) {
    if (found.title !== queuePullTitle(mission)) return github.updatePullRequest({ number: found.number, title: queuePullTitle(mission), body });
    return github.updatePullRequest({ number: found.number, body });
  }
  if (mission.queue.head === mission.base.commit) return null;
  if (!(options.open ?? deps.resultCi !== "app")) return null;
  return (deps.ciGitHub ?? github).createPullRequest({
    head,
    base: mission.base.ref,
    title: queuePullTitle(mission),
    body,
    ...(deps.runUrl ? { link: deps.runUrl } : {}),
  });
}

export function queuePullTitle(mission: Mission): string {
  const what = mission.plan_title || mission.task.trim().split("\n")[0] || "run the plan";
  return `naruto: ${what.replace(/\s+/g, " ").trim().slice(0, 200)}`;
}

function queuePullBody(mission: Mission): string {
  const issue = issueOf(mission);
  const integrated = mission.items.filter((i) => i.status === "integrated").length;
  return [
    `naruto mission ${codeSpan(mission.id)}${issue === null ? "" : ` for #${issue}`}: ${mission.status}, ${integrated} of ${mission.items.length} items integrated.`,
    "",
    `> ${inlineText(mission.task.trim().split("\n")[0] ?? "", 200)}`,
    "",
    "Each commit is one work item's checkpoint, verified on the merge queue before it landed here.",
    issue === null ? "" : `The tracking comment on #${issue} shows every item; the arbiter's verdict is posted here when the mission ends.`,
    "Not approved means not merged: naruto does not merge this pull request by itself.",
  ]
    .filter((l, i, all) => l !== "" || all[i - 1] !== "")
    .join("\n");
}

/** Creates or updates the tracking comment from the mission as stored. */
export async function publishTracking(deps: Publish, mission: Mission, pullRequest: PullRequest | null): Promise<void> {
  const issue = issueOf(mission);
  if (issue === null) return;
  const links = { ...(deps.runUrl ? { run: deps.runUrl } : {}), ...(pullRequest ? { pullRequest: pullRequest.url } : {}) };
  await deps.github.upsertComment({
    issue,
    marker: trackingMarker(mission.id),
    body: trackingComment(mission, { links, ci: deps.resultCi ?? "none" }),
    ...(deps.runUrl ? { link: deps.runUrl } : {}),
    ...narutoAuthors(deps),
  });
}

const CONCLUSION: Record<NonNullable<Mission["verdict"]>["verdict"], CheckConclusion> = {
  approve: "success",
  request_changes: "failure",
  block: "failure",
};

/**
 * The verdict: one comment on the queue pull request (on the issue when nothing was integrated),
 * updated in place by its marker, and a check run on the queue head.
 */
export async function publishVerdict(deps: Publish, mission: Mission, pullRequest: PullRequest | null): Promise<void> {
  if (mission.verdict === null) return;
  const target = pullRequest?.number ?? issueOf(mission);
  if (target !== null) {
    await deps.github.upsertComment({
      issue: target,
      marker: verdictMarker(mission.id),
      body: verdictComment(mission, { ci: deps.resultCi ?? "none" }),
      ...(deps.runUrl ? { link: deps.runUrl } : {}),
      ...narutoAuthors(deps),
    });
  }
  // A check on the base commit would mark the user's own branch: only the queue gets one (or,
  // for a review, the head of the pull request that asked for it).
  if (mission.queue.head === mission.base.commit) return;
  await deps.github.createCheckRun({
    name: "naruto",
    headSha: mission.queue.head,
    externalId: `naruto:${mission.id}:verdict`,
    status: "completed",
    conclusion: CONCLUSION[mission.verdict.verdict],
    output: { title: `naruto verdict: ${mission.verdict.verdict}`, summary: verdictComment(mission, { ci: deps.resultCi ?? "none" }) },
    ...(deps.runUrl ? { detailsUrl: deps.runUrl, link: deps.runUrl } : {}),
  });
}

/** Everything a mission shows, from its stored state. Failures are logged, never thrown: display only. */
export async function publishMission(deps: Publish, mission: Mission, options: { verdict: boolean }): Promise<void> {
  let pullRequest: PullRequest | null = null;
  try {
    pullRequest = await ensureQueuePullRequest(deps, mission);
  } catch (error) {
    deps.log.warning(`could not open or update the queue pull request: ${message(error)}`);
  }
  try {
    await publishTracking(deps, mission, pullRequest);
  } catch (error) {
    deps.log.warning(`could not update the tracking comment: ${message(error)}`);
  }
  if (!options.verdict) return;
  try {
    await publishVerdict(deps, mission, pullRequest);
  } catch (error) {
    deps.log.warning(`could not post the verdict: ${message(error)}`);
  }
}

export function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
