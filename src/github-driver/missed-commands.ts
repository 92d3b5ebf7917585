/**
 * `/naruto` comments nobody answered: the App answers a delivery (202) before it handles it, so a
 * crash in between leaves a comment GitHub counts as delivered and nothing handled. The sweep
 * (every 15 minutes) finds such comments and handles them as the App would have: a `/naruto`
 * comment of the last hour, older than a grace period (the App may still be at it), by no bot of
 * naruto's, with no 👀 (naruto reacts 👀 to every command it accepts, before acting) — or, for a
 * command that starts a mission (`run`, `plan`), with its 👀 but no mission stored and no reply
 * of naruto's: the App crashed (or lost GitHub's answer) between the reaction and the mission's
 * first save (a reply without a mission is a refusal after the 👀, which removed it). Handling
 * is idempotent (a mission's id comes from its comment's id, replies are keyed to it), so a
 * comment handled twice changes nothing; a refused one gets its one reply, not a second.
 *
 * Not recovered: other commands (status, cancel, retry …) that got their 👀 and crashed before
 * acting; they are left to the user, who sees no answer to them.
 */
import { parseCommand } from "./command.ts";
import type { CommentDeps, CommentOutcome } from "./comment-types.ts";
import { handleComment } from "./handle-comment.ts";
import { missionIdFor } from "./mission-id.ts";
import { narutoAuthors } from "./deps.ts";
import { markerFor } from "../github/index.ts";

/** How far back the sweep looks. */
export const MISSED_WINDOW_MS = 60 * 60_000;
/** How long a comment is left to the App before the sweep takes it. */
export const MISSED_GRACE_MS = 2 * 60_000;

export interface MissedCommand {
  readonly comment: number;
  readonly issue: number;
  readonly outcome: CommentOutcome;
}

export async function answerMissedCommands(deps: CommentDeps, input: { defaultBranch: string; windowMs?: number; graceMs?: number }): Promise<MissedCommand[]> {
  const now = deps.now().getTime();
  const since = new Date(now - (input.windowMs ?? MISSED_WINDOW_MS)).toISOString();
  const before = now - (input.graceMs ?? MISSED_GRACE_MS);
  const repo = `${deps.github.repo.owner}/${deps.github.repo.repo}`;
  const comments = await deps.github.listRecentComments({ since });
  const candidates = comments.filter(
    (c) => Date.parse(c.createdAt) <= before && c.user !== null && !deps.selfLogins.includes(c.user.login) && parseCommand(c.body) !== null,
  );
  const done: MissedCommand[] = [];
  for (const c of candidates) {
    if (c.eyes > 0) {
      const kind = parseCommand(c.body)?.kind;
      if (kind !== "run" && kind !== "plan") continue;
      if ((await deps.store.load(missionIdFor(repo, c.id))) !== null) continue;
      // Answered without a mission: refused after the 👀 (a workflow change), its mission removed.
      if ((await deps.github.findComment({ issue: c.issue, marker: markerFor(`reply:${c.id}`), ...narutoAuthors(deps) })) !== null) continue;
    }
    const issue = await deps.github.getIssue({ number: c.issue });
    if (issue === null || c.user === null) continue;
    const outcome = await handleComment(deps, {
      repo,
      defaultBranch: input.defaultBranch,
      issue: { number: issue.number, pullRequest: issue.pullRequest, body: issue.body, user: issue.user },
      comment: { id: c.id, body: c.body, user: c.user },
    });
    deps.log.info(
      `#${c.issue}: an unanswered /naruto comment (${c.id}) handled: ${outcome.kind === "mission" ? `mission ${outcome.mission}` : `${outcome.kind}, ${outcome.reason}`}`,
    );
    done.push({ comment: c.id, issue: c.issue, outcome });
  }
  return done;
}
