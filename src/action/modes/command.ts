/**
 * `command` (app-less mode; write token, no agent): a `/naruto` comment handled by the same
 * function the App calls (`handleComment`).
 */
import { handleComment, type CommentOutcome } from "../../github-driver/index.ts";
import type { CommandInput, ModeDeps } from "../deps.ts";

export async function commandMode(deps: ModeDeps, input: CommandInput): Promise<CommentOutcome> {
  if (input.event === null) {
    deps.log.info("not a created issue comment: nothing to do");
    return { kind: "ignored", reason: "not a created issue comment" };
  }
  const outcome = await handleComment({ ...deps, selfLogins: input.selfLogins, pullRequestHead: input.pullRequestHead }, input.event);
  if (outcome.kind === "mission") {
    deps.log.setOutput("mission", outcome.mission);
    deps.log.setOutput("matrix", JSON.stringify(outcome.dispatched.map((d) => ({ item: d.item, attempt: d.attempt }))));
  }
  const line = outcome.kind === "mission" ? `mission \`${outcome.mission}\`${outcome.created ? " requested" : ""}` : `${outcome.kind}: ${outcome.reason}`;
  deps.log.info(line);
  await deps.log.summary(`### naruto · /naruto on #${input.event.issue.number}\n\n${line}\n`);
  return outcome;
}
