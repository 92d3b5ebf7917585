/**
 * The pull-request commands (DESIGN.md §10). Neither ever pushes to the pull request's branch.
 *
 * - `/naruto review`: the arbiter alone on the pull request's diff — a review-only mission whose
 *   base is the merge base of the pull request's base branch and head, and whose queue head is
 *   the head commit (the branch `naruto/<mission>` points there so the review job can check it
 *   out). The verdict is a comment on the pull request and a check run on its head.
 * - `/naruto fix-review`: one item per file with unresolved review threads
 *   (`fix-review-plan.ts`), based on the pull request's head; the queue pull request proposes the
 *   result into the head branch. Not for forks: a pull request cannot be opened into a fork.
 */
import { sanitizeUntrusted } from "../agent/sanitize-untrusted.ts";
import { formatConfigErrors, type Config } from "../config/index.ts";
import { GraphqlError } from "../github/errors.ts";
import type { PullRequestInfo } from "../github/port.ts";
import { checkPlan, formatPlanError } from "../plan/index.ts";
import { carryOut } from "./carry-out.ts";
import { fixReviewPlan } from "./fix-review-plan.ts";
import type { CommentContext, CommentOutcome } from "./comment-types.ts";
import { missionIdFor } from "./mission-id.ts";
import { message } from "./publish.ts";
import { readConfigAt } from "./settings.ts";
import { requestMission } from "./start-mission.ts";

type PullCommand = "review" | "fix-review";

/** Characters of the pull request's description carried into the review's request. */
const MAX_DESCRIPTION = 4_000;

export async function reviewPullRequest(ctx: CommentContext): Promise<CommentOutcome> {
  const found = await openPullRequest(ctx, "review");
  if (found.kind === "outcome") return found.outcome;
  const { pr, id } = found;
  const { github } = ctx.deps;
  const { mergeBase } = await github.compareCommits({ base: pr.base.sha, head: pr.head.sha });
  if (mergeBase === pr.head.sha) return reply(ctx, `pull request #${pr.number} has no commits that ${pr.base.ref} does not have: there is nothing to review`);
  // The review job reads the config at the mission's base: the base branch's, reviewed code.
  const config = await configAt(ctx, mergeBase);
  if (config.kind === "outcome") return config.outcome;
  if (config.config.arbiter.agent === null) {
    return reply(ctx, `\`/naruto review\` needs a review agent, and ${ctx.deps.configPath} on ${pr.base.ref} names none: set \`arbiter.agent\` to one of your agent profiles`);
  }
  return requestMission(ctx, {
    id,
    base: { ref: pr.base.ref, commit: mergeBase },
    task: reviewTask(pr, ctx.event.issue.body),
    config: config.config,
    approval: false,
    planText: null,
    review: { head: pr.head.sha },
  });
}

export async function fixReview(ctx: CommentContext): Promise<CommentOutcome> {
  const found = await openPullRequest(ctx, "fix-review");
  if (found.kind === "outcome") return found.outcome;
  const { pr, id } = found;
  if (pr.fromFork) {
    return reply(
      ctx,
      `\`/naruto fix-review\` cannot work on pull request #${pr.number}: its branch lives in another repository, and naruto can only propose changes as a pull request into a branch of this one. Push the branch to this repository, or ask for the fixes with \`/naruto <task>\` on an issue`,
    );
  }
  let threads;
  try {
    threads = await ctx.deps.github.reviewThreads({ pull: pr.number });
  } catch (error) {
    if (!(error instanceof GraphqlError)) throw error;
    return reply(ctx, `naruto could not read the review threads of #${pr.number}: ${message(error)}`);
  }
  // The mission starts from the head: its config is the one its jobs will read there.
  const config = await configAt(ctx, pr.head.sha);
  if (config.kind === "outcome") return config.outcome;
  const { config: cfg } = config;
  const built = fixReviewPlan({ pull: { number: pr.number, title: pr.title }, threads, protectedPaths: cfg.protected, allowProtected: cfg.allow_protected });
  if (built.kind === "nothing") return reply(ctx, built.reason);
  const planText = `${JSON.stringify(built.plan, null, 2)}\n`;
  const checked = checkPlan(planText, { limits: { maxItems: cfg.limits.max_items, maxPromptChars: 65_536, protected: cfg.protected, allowProtected: cfg.allow_protected }, strict: false });
  if (!checked.ok) {
    const errors = checked.errors.slice(0, 20).map(formatPlanError).join("\n");
    return reply(ctx, `naruto did not start: the plan for the review threads of #${pr.number} is not valid:\n\n\`\`\`\n${errors}\n\`\`\`\n\n(\`limits.max_items\` in ${ctx.deps.configPath} caps how many files one mission may fix)`);
  }
  return requestMission(ctx, {
    id,
    base: { ref: pr.head.ref, commit: pr.head.sha },
    task: built.task,
    config: cfg,
    approval: false,
    planText,
  });
}

type Found = { readonly kind: "found"; readonly pr: PullRequestInfo; readonly id: string } | { readonly kind: "outcome"; readonly outcome: CommentOutcome };

/**
 * The open pull request the comment is on, and the mission id of the comment. A comment whose
 * mission exists already (a redelivery, a re-run job) is answered from the stored mission:
 * nothing is read, planned or dispatched again.
 */
async function openPullRequest(ctx: CommentContext, command: PullCommand): Promise<Found> {
  const { deps, event } = ctx;
  if (!event.issue.pullRequest) {
    const what = command === "review" ? "the pull request you want reviewed" : "the pull request whose review threads naruto should fix";
    return { kind: "outcome", outcome: await reply(ctx, `\`/naruto ${command}\` works on a pull request: comment it on ${what}`) };
  }
  const id = missionIdFor(event.repo, event.comment.id);
  const existing = await deps.store.load(id);
  if (existing !== null) {
    const done = await carryOut(deps, { mission: existing.mission, commands: [] });
    return { kind: "outcome", outcome: { kind: "mission", mission: id, created: false, dispatched: done.dispatched } };
  }
  const pr = await deps.github.getPullRequest({ number: event.issue.number });
  if (pr === null) return { kind: "outcome", outcome: await reply(ctx, `naruto could not read pull request #${event.issue.number}`) };
  if (pr.state !== "open") return { kind: "outcome", outcome: await reply(ctx, `pull request #${pr.number} is closed: reopen it to use \`/naruto ${command}\``) };
  return { kind: "found", pr, id };
}

async function configAt(ctx: CommentContext, commit: string): Promise<{ kind: "config"; config: Config } | { kind: "outcome"; outcome: CommentOutcome }> {
  const loaded = await readConfigAt(ctx.deps.github, ctx.deps.configPath, commit);
  if (loaded.ok) return { kind: "config", config: loaded.config };
  await ctx.reply(`naruto did not start: the config is invalid.\n\n\`\`\`\n${formatConfigErrors(loaded.errors, ctx.deps.configPath)}\n\`\`\``);
  return { kind: "outcome", outcome: { kind: "replied", reason: "invalid config" } };
}

async function reply(ctx: CommentContext, reason: string): Promise<CommentOutcome> {
  await ctx.reply(reason);
  return { kind: "replied", reason };
}

/** The review's request: the pull request's title and description (untrusted: the prompt quotes it as data). */
function reviewTask(pr: PullRequestInfo, description: string | null): string {
  const title = sanitizeUntrusted(pr.title).replace(/\s+/g, " ").trim();
  const body = sanitizeUntrusted(description ?? "").trim();
  const cut = body.length > MAX_DESCRIPTION ? `${body.slice(0, MAX_DESCRIPTION)}…` : body;
  const head = `Review pull request #${pr.number}${title ? `: ${title}` : ""} — its changes from ${pr.base.ref} (${pr.head.ref}).`;
  return cut === "" ? head : `${head}\n\nIts description:\n\n${cut}`;
}
