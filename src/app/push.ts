/**
 * `push` → refresh on push (issue 37, src/github-driver/refresh-on-push.ts): a finished mission's
 * queue is replayed onto its base branch when the branch moves and its config says
 * `queue.refresh: on_push`. Pushes that cannot matter (a deleted branch, a tag, naruto's own
 * branches: most pushes an installation sees are naruto's state saves) are dropped before any
 * request. A redelivered push, or the same push at two replicas, asks for the same refresh: the
 * mission's refresh lease lets one dispatch.
 */
import type { Context } from "probot";
import { pushedBase, refreshOnPush, type PushOutcome } from "../github-driver/index.ts";
import type { AppDeps } from "./deps.ts";
import { installationDeps } from "./installation.ts";

export async function onPush(deps: AppDeps, context: Context<"push">): Promise<PushOutcome> {
  const { payload } = context;
  const push = { ref: payload.ref, after: payload.after, deleted: payload.deleted };
  const base = pushedBase(push);
  if ("reason" in base) return { kind: "ignored", reason: base.reason };
  const { repository } = payload;
  const owner = repository.owner?.login ?? repository.full_name.split("/")[0] ?? "";
  const driver = installationDeps(deps, context, { owner, repo: repository.name, defaultBranch: repository.default_branch });
  const outcome = await refreshOnPush({ ...driver, configPath: deps.configPath }, push);
  const line = outcome.kind === "ignored" ? outcome.reason : outcome.missions.map((m) => `${m.id} ${m.outcome}`).join(", ") || "no mission";
  context.log.info(`push to ${repository.full_name} ${payload.ref} at ${payload.after.slice(0, 12)} (delivery ${context.id}): ${line}`);
  return outcome;
}
