/**
 * `issue_comment.created` → the same `handleComment` the Action's app-less `command` mode calls:
 * permission check, 👀, mission state, queue branch, tracking comment, plan dispatch. Edited
 * and deleted comments never reach it (the App subscribes to `created` only, and the payload is
 * read by the same `commentEventOf` as the Action's, which drops anything else).
 */
import type { Context } from "probot";
import { commentEventOf } from "../github-driver/index.ts";
import { handleComment, type CommentOutcome } from "../github-driver/index.ts";
import type { AppDeps } from "./deps.ts";
import { installationDeps } from "./installation.ts";

export async function onComment(deps: AppDeps, context: Context<"issue_comment.created">): Promise<CommentOutcome> {
  const event = commentEventOf("issue_comment", context.payload);
  if (event === null) return { kind: "ignored", reason: "not a created issue comment" };
  const { repository } = context.payload;
  const driver = installationDeps(deps, context, { owner: repository.owner.login, repo: repository.name, defaultBranch: repository.default_branch });
  const outcome = await handleComment({ ...driver, configPath: deps.configPath, selfLogins: [deps.botLogin] }, event);
  const line = outcome.kind === "mission" ? `mission ${outcome.mission}${outcome.created ? " requested" : ""}` : `${outcome.kind}: ${outcome.reason}`;
  context.log.info(`/naruto on ${event.repo}#${event.issue.number} (delivery ${context.id}): ${line}`);
  return outcome;
}
