/**
 * A `/naruto` comment, from the payload to the mission (docs/action.md): parse, check who asked
 * (the account, by numeric id), read once what the mission will depend on (the default branch's
 * head and its config, the pull request's head), react, then act. The Action's `command` mode and
 * the App call this same function.
 *
 * Refusals get one polite reply and change nothing else. Every reply is keyed to the comment
 * that asked (a marker with its id), and a mission's id is derived from the comment's id, so a
 * redelivered comment or a re-run job repeats nothing.
 */
import { formatConfigErrors } from "../config/index.ts";
import { narutoAuthors } from "./deps.ts";
import type { CommentContext, CommentDeps, CommentEvent, CommentOutcome, PullRequestHead } from "./comment-types.ts";
import { helpText, parseCommand, type NarutoCommand } from "./command.ts";
import { refusalText } from "./gate.ts";
import { actOnMission } from "./mission-commands.ts";
import { fixReview, reviewPullRequest } from "./pull-commands.ts";
import { refreshOnComment } from "./refresh.ts";
import { readConfigAt } from "./settings.ts";
import { startMission } from "./start-mission.ts";
import { standingOf as standingOfAuthor, type Author, type GateFacts } from "./who-may-instruct.ts";
import { markerFor } from "../github/index.ts";
import type { GitHubPort } from "../github/index.ts";

export type { CommentContext, CommentDeps, CommentEvent, CommentOutcome, PullRequestHead } from "./comment-types.ts";

/** The lookup of a pull request's head through the port (what both entry points pass as `pullRequestHead`). */
export function pullRequestHeadVia(github: GitHubPort): (number: number) => Promise<PullRequestHead | null> {
  return async (number) => {
    const pr = await github.getPullRequest({ number });
    return pr === null ? null : { ref: pr.head.ref, sha: pr.head.sha, fromFork: pr.fromFork };
  };
}

export async function handleComment(deps: CommentDeps, event: CommentEvent): Promise<CommentOutcome> {
  const command = parseCommand(event.comment.body);
  if (command === null) return { kind: "ignored", reason: "not a /naruto command" };
  const { github } = deps;
  const sender = event.comment.user;
  if (deps.selfLogins.includes(sender.login)) return { kind: "ignored", reason: "naruto's own comment" };

  // Read once, here, and used by everything after (docs/architecture.md): the default branch's head,
  // whose config the mission and each of its jobs follow, and the pull request's head, pinned.
  const configCommit = await github.getRef(`refs/heads/${event.defaultBranch}`);
  const loaded = await readConfigAt(github, deps.configPath, configCommit ?? event.defaultBranch);
  const config = loaded.ok ? loaded.config : null;
  const gateConfig = config ?? { limits: { min_permission: "write" as const }, allow_bots: [] as string[] };
  const pullRequest = event.issue.pullRequest ? await deps.pullRequestHead(event.issue.number) : null;
  const facts: GateFacts = {
    selfLogins: deps.selfLogins,
    fromFork: pullRequest?.fromFork ?? false,
    config: { min_permission: gateConfig.limits.min_permission, allow_bots: gateConfig.allow_bots },
  };
  const standingOf = (author: Author) => standingOfAuthor(github, author, facts);
  const { decision } = await standingOf(sender);
  const reply = async (body: string) => {
    await github.upsertComment({
      issue: event.issue.number,
      marker: markerFor(`reply:${event.comment.id}`),
      body,
      ...narutoAuthors(deps),
      ...(deps.runUrl ? { link: deps.runUrl } : {}),
    });
  };
  if (!decision.allowed) {
    if (decision.silent) return { kind: "ignored", reason: decision.reason };
    await reply(refusalText(decision.reason));
    return { kind: "refused", reason: decision.reason };
  }

  await github.addReaction({ target: { comment: event.comment.id }, content: "eyes" });
  const configErrors = loaded.ok ? null : formatConfigErrors(loaded.errors, deps.configPath);
  const ctx: CommentContext = { deps, event, config, configErrors, configCommit, pullRequest, standingOf, reply };
  return dispatchCommand(ctx, command);
}

async function dispatchCommand(ctx: CommentContext, command: NarutoCommand): Promise<CommentOutcome> {
  switch (command.kind) {
    case "help":
      await ctx.reply(helpText(command.reason));
      return { kind: "replied", reason: "help" };
    case "review":
      return reviewPullRequest(ctx);
    case "fix-review":
      return fixReview(ctx);
    case "refresh":
      return refreshOnComment(ctx);
    case "run":
    case "plan":
      return startMission(ctx, command);
    case "approve":
    case "status":
    case "retry":
    case "cancel":
      return actOnMission(ctx, command);
  }
}
