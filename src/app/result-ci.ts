/**
 * CI on the result, with the App: GitHub starts no workflow for what a workflow's
 * `GITHUB_TOKEN` pushes or opens, so the queue branch the `publish` jobs push would never get the
 * repository's CI, and required checks would stay pending. Events made with the App's
 * installation token do start workflows. So, each time a mission's `publish` job ends:
 *
 * - the App opens the queue pull request itself, once the queue holds something (the workflow's
 *   jobs only update it when the App is installed): `opened` starts the `pull_request` workflows;
 * - once the mission has ended, if the pull request's head (the result) has no check run of any
 *   other app than naruto's yet, the App closes and reopens it, once: `reopened` starts them on the
 *   final head. A push is no way to do it: pushing a branch to the commit it already has starts
 *   nothing, and any other commit would not be the verified queue head.
 */
import type { Context } from "probot";
import { ensureQueuePullRequest } from "../github-driver/index.ts";
import type { PullRequest } from "../github/index.ts";
import { createLru } from "../github/index.ts";
import { isMissionTerminal } from "../mission/index.ts";
import type { AppDeps } from "./deps.ts";
import { installationDeps } from "./installation.ts";

const MISSION_ID = /^m-[a-z0-9]{4,32}$/;

/** The check run naruto's own verdict is (made with the workflow's token: GitHub's Actions app on github.com). */
const VERDICT_CHECK = "naruto";

/** Results whose CI this App started (repository, mission and head): once each, while it runs. */
export interface StartedCi {
  get(key: string): true | undefined;
  set(key: string, value: true): void;
}

export function createStartedCi(limit = 1_000): StartedCi {
  return createLru(limit);
}

/** A job of a run ended, as a `workflow_job` `completed` event shows it. */
export interface EndedPublish {
  /** `publish m-1a2b3c`. */
  readonly name: string;
  readonly conclusion: string | null;
}

export async function onPublishEnded(deps: AppDeps, memory: { ci: StartedCi }, context: Context<"workflow_job">, job: EndedPublish): Promise<void> {
  const [phase, id] = job.name.split(/\s+/);
  if (phase !== "publish" || id === undefined || !MISSION_ID.test(id) || job.conclusion !== "success") return;
  const { repository } = context.payload;
  const driver = {
    ...installationDeps(deps, context, { owner: repository.owner.login, repo: repository.name, defaultBranch: repository.default_branch }),
    resultCi: "app" as const,
  };
  const stored = await driver.store.load(id);
  if (stored === null) return;
  const { mission } = stored;
  if (mission.kind === "review" || mission.queue.head === mission.base.commit) return;
  let pull = await driver.github.findPullRequest({ head: mission.queue.branch, base: mission.base.ref });
  const key = `${repository.full_name.toLowerCase()}:${id}:${mission.queue.head}`;
  if (pull === null) {
    pull = await ensureQueuePullRequest(driver, mission, { open: true });
    if (pull === null) return;
    context.log.info(`${id}: queue pull request #${pull.number} opened by the App, so that the repository's CI runs on it`);
    // Opened at the result itself: `opened` started its CI.
    if (isMissionTerminal(mission.status) && pull.headSha === mission.queue.head) memory.ci.set(key, true);
  }
  if (!isMissionTerminal(mission.status) || pull.headSha !== mission.queue.head || memory.ci.get(key) === true) return;
  await restartCi(driver, pull, deps.botLogin);
  memory.ci.set(key, true);
  context.log.info(
    `${id}: the result ${mission.queue.head.slice(0, 12)} had no CI yet: pull request #${pull.number} closed and reopened by the App to start it`,
  );
}

/** Closes and reopens the pull request with the App's token, unless a check run of another app is on its head already. */
async function restartCi(driver: ReturnType<typeof installationDeps>, pull: PullRequest, botLogin: string): Promise<void> {
  const ours = botLogin.replace(/\[bot\]$/, "");
  const checks = await driver.github.listCheckRuns({ ref: pull.headSha });
  if (checks.some((c) => c.name !== VERDICT_CHECK && c.app !== ours)) return;
  await driver.github.updatePullRequest({ number: pull.number, state: "closed" });
  await driver.github.updatePullRequest({ number: pull.number, state: "open" });
}
