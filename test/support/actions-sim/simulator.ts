/**
 * The Actions simulator: runs workflow runs of one repository of the fake GitHub. The workflow
 * file is read from the fake's repository at the run's commit (as GitHub does), each job gets a
 * token the fake mints with exactly the job's `permissions:`, and dispatch runs show their
 * progress in the fake's runs and jobs API.
 *
 * @example
 *   const sim = await createActionsSimulator({ fake, repo: "acme/demo", actionDir: REPO_ROOT });
 *   await sim.trigger({ event: "issue_comment", payload: fake.payloads.issueComment({ repo, commentId }) });
 *   const runs = await runUntilQuiet({ fake, simulator: sim });
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { gitText } from "../../../src/git/run-git.ts";
import { assertWebhookPayload, type DispatchRecord, type FakeGitHub } from "../fake-github/index.ts";
import { testGit } from "../git-repo.ts";
import { readLocalAction, type LocalAction } from "./action-steps.ts";
import { createConcurrencyGroups } from "./concurrency.ts";
import { createRunnerPool, HOSTED_LABELS, type RunnerPool } from "./runners.ts";
import { dispatchTrigger, triggers, type RunTrigger } from "./events.ts";
import type { RunScope, StepHookInfo } from "./job-runner.ts";
import { canIsolate, type Isolation } from "./machine.ts";
import type { DefaultPermissions } from "./permissions.ts";
import { standardAction } from "./step-runner.ts";
import type { RunResult } from "./types.ts";
import { createRepoEventRunner, type RepoEventKind } from "./repo-events.ts";
import { parseWorkflow, type Workflow } from "./workflow.ts";
import { runTitle, runWorkflow, type JobHookInfo, type JobReport } from "./workflow-run.ts";

export interface SimulatorOptions {
  readonly fake: FakeGitHub;
  /** `owner/name` of the fake repository whose workflow runs. */
  readonly repo: string;
  /** The folder with the repository's `action.yml` (this repository); any non-standard `uses:` runs it. */
  readonly actionDir: string;
  /** Default `.github/workflows/naruto.yml`. */
  readonly workflowPath?: string;
  readonly secrets?: Readonly<Record<string, string>>;
  /**
   * Variables every step gets, as a self-hosted runner's `.env` file sets them (lower precedence
   * than the runner's own GITHUB_* and RUNNER_* variables). Read as each job starts: a caller
   * may change the object between runs.
   */
  readonly runnerEnv?: Readonly<Record<string, string>>;
  readonly vars?: Readonly<Record<string, string>>;
  /** `auto` (default): namespaces when the machine allows them. */
  readonly isolation?: Isolation | "auto";
  /** Matrix legs of one job at once (default 2): what this machine can run side by side. */
  readonly legConcurrency?: number;
  /**
   * Jobs of the repository that run at once, across all runs (default 20, a GitHub Free account's
   * hosted runners); the others wait `queued` with no start of their own, first come first served.
   */
  readonly runnerQuota?: number;
  /** The labels of the repository's runners (default GitHub-hosted `ubuntu-latest`, `ubuntu-24.04`): a job runs only where all of its `runs-on` are. */
  readonly runnerLabels?: readonly string[];
  readonly defaultPermissions?: DefaultPermissions;
  /** Which `uses:` run `actionDir`; default every one that is not checkout/upload/download-artifact. */
  readonly isLocalAction?: (uses: string) => boolean;
  /** Called before each job that runs. */
  readonly beforeJob?: (info: JobHookInfo) => Promise<void> | void;
  /**
   * Called before and after each step that runs, with the job's folders and runtime token: a test
   * plays a process of the job (one that edits the artifact folder, or uploads with the token).
   */
  readonly stepHook?: (info: StepHookInfo) => Promise<void> | void;
  /** Folders every job's machine may write, at the same path (a test's report folder). */
  readonly sharedDirs?: readonly string[];
  /** A cap on each job's time (default 15 minutes): a hung step fails its job instead of the test. */
  readonly jobTimeoutMs?: number;
  /** Keep job folders for debugging (default false). */
  readonly keepJobDirs?: boolean;
}

export type TriggerInput =
  | { readonly event: "issue_comment"; readonly payload: Readonly<Record<string, unknown>> }
  | { readonly event: "schedule"; readonly cron?: string };

export interface ActionsSimulator {
  readonly isolation: Isolation;
  /** Every run so far, in the order they finished. */
  readonly runs: readonly RunResult[];
  /** The repository's runners: how many jobs run and wait now, and the most that ever did. */
  readonly runners: Pick<RunnerPool, "running" | "peak" | "waiting" | "peakWaiting">;
  /** Runs a recorded `workflow_dispatch`. */
  runDispatch(record: DispatchRecord): Promise<RunResult>;
  /** Runs an event the fake records no dispatch for; null when the workflow does not run for it. */
  trigger(input: TriggerInput): Promise<RunResult | null>;
  /** Dispatches of this repository's workflow recorded by the fake and not run yet (marks them taken). */
  takeDispatches(): DispatchRecord[];
  /**
   * Runs the repository's workflows (every file of `.github/workflows/`: at the event's commit
   * for `push` and `pull_request`, the default branch's head for `issue_comment`) for the events
   * of those kinds (default `push` and `pull_request`: its CI) the fake recorded and no call ran
   * yet that start workflows (not those made with a job's `GITHUB_TOKEN`); each job of a push or
   * pull request run reports a check run of the GitHub Actions app on the event's commit, as
   * required status checks read them. `issue_comment` is asked for by name: test worlds feed
   * their users' comments through `trigger` (not run twice here).
   */
  runEvents(input?: { events?: readonly RepoEventKind[] }): Promise<RunResult[]>;
  close(): Promise<void>;
}

export async function createActionsSimulator(options: SimulatorOptions): Promise<ActionsSimulator> {
  const { fake } = options;
  const root = await mkdtemp(join(tmpdir(), "actions-sim-"));
  const concurrency = createConcurrencyGroups();
  const runners = createRunnerPool({ quota: options.runnerQuota ?? 20, labels: options.runnerLabels ?? HOSTED_LABELS });
  const isolation: Isolation = options.isolation === undefined || options.isolation === "auto" ? (canIsolate() ? "namespace" : "none") : options.isolation;
  const workflowPath = options.workflowPath ?? ".github/workflows/naruto.yml";
  const actionDir = resolve(options.actionDir);
  const runs: RunResult[] = [];
  let taken = 0;
  let nextLocalRun = 7_000_000;
  let action: Promise<LocalAction> | undefined;
  const git = testGit();
  const repoState = () => fake.repo(options.repo);

  const readWorkflow = async (sha: string): Promise<Workflow> =>
    parseWorkflow(await gitText(git, { args: ["show", `${sha}:${workflowPath}`], cwd: repoState().dir }), workflowPath);

  const execute = async (trigger: RunTrigger, workflow: Workflow, checksOn: string | null = null): Promise<RunResult> => {
    const repo = repoState();
    const id = trigger.fakeRunId ?? nextLocalRun++;
    const fakeRun = trigger.fakeRunId === null ? undefined : repo.runs.get(trigger.fakeRunId);
    const scope: RunScope = {
      id,
      runNumber: fakeRun?.runNumber ?? id,
      trigger,
      workflow,
      repository: { fullName: repo.fullName, id: repo.id, owner: repo.owner.login },
      serverUrl: fake.url,
      apiUrl: fake.apiUrl,
      root,
      isolation,
      runtime: {
        issue: (jobId) => fake.issueRuntimeToken({ repo: options.repo, runId: id, jobId }),
        revoke: (token) => fake.revokeRuntimeToken(token),
        resultsUrl: `${fake.url}/_actions/results/`,
      },
      ...(options.stepHook !== undefined ? { stepHook: options.stepHook } : {}),
      defaultPermissions: options.defaultPermissions ?? "restricted",
      secrets: options.secrets ?? {},
      extraEnv: options.runnerEnv ?? {},
      vars: options.vars ?? {},
      readOnly: [actionDir],
      shared: options.sharedDirs ?? [],
      keepJobDirs: options.keepJobDirs ?? false,
      jobTimeoutMs: options.jobTimeoutMs ?? 15 * 60_000,
      mint: (permissions) =>
        fake.issueAppToken({ owner: repo.owner.login, permissions, repositories: [repo.name], bot: "github-actions[bot]", workflowToken: true }).token,
      revoke: (token) => void fake.revokeToken(token),
      resolveAction: async (uses) => {
        if (standardAction(uses) !== null) return null;
        if (options.isLocalAction !== undefined && !options.isLocalAction(uses)) return null;
        action ??= readLocalAction(actionDir);
        return action;
      },
      isCancelled: () => fakeRun?.conclusion === "cancelled",
    };
    if (fakeRun?.status === "completed") {
      const result: RunResult = { id, title: runTitle(scope), event: trigger.event, inputs: {}, conclusion: "cancelled", jobs: [] };
      runs.push(result);
      return result;
    }
    if (fakeRun !== undefined) fake.setRunStatus(id, { status: "in_progress", title: runTitle(scope) });
    const result = await runWorkflow(scope, {
      concurrency,
      runners,
      legConcurrency: options.legConcurrency ?? 2,
      ...(options.beforeJob !== undefined ? { beforeJob: options.beforeJob } : {}),
      // A push or pull request run: each job is a check run on the event's commit.
      ...(checksOn !== null
        ? {
            reportJob: (name: string, report: JobReport) => {
              reportCheck(name, report, checksOn);
              return null;
            },
          }
        : {}),
      ...(fakeRun !== undefined
        ? {
            reportJob: (name: string, report: JobReport) =>
              fake.setJob(id, {
                name,
                status: report.status,
                ...(report.conclusion !== undefined ? { conclusion: report.conclusion } : {}),
                ...(report.labels !== undefined ? { labels: report.labels } : {}),
                ...(report.runner !== undefined ? { runner: report.runner } : {}),
              }),
            reportStep: (jobId: number, step: Parameters<FakeGitHub["setJobStep"]>[1]) => fake.setJobStep(jobId, step),
          }
        : {}),
    });
    // Read again: a cancel through the API may have completed the run meanwhile.
    if (fakeRun !== undefined && repo.runs.get(id)?.status !== "completed") fake.setRunStatus(id, { status: "completed", conclusion: result.conclusion });
    runs.push(result);
    return result;
  };

  const checkIds = new Map<string, number>();
  const reportCheck = (name: string, report: JobReport, headSha: string) => {
    const key = `${headSha}:${name}`;
    const conclusion = report.conclusion;
    const id = fake.setActionsCheckRun(options.repo, {
      ...(checkIds.has(key) ? { id: checkIds.get(key) as number } : {}),
      name,
      headSha,
      status: report.status,
      ...(conclusion !== undefined ? { conclusion } : {}),
    });
    checkIds.set(key, id);
  };

  const repoEvents = createRepoEventRunner({ fake, repo: options.repo, git, execute });
  return {
    isolation,
    runs,
    runners,
    runDispatch: async (record) => {
      const workflow = await readWorkflow(record.sha);
      return execute(dispatchTrigger({ record, on: workflow.on, payloads: fake.payloads }), workflow);
    },
    trigger: async (input) => {
      const repo = repoState();
      const sha = await gitText(git, { args: ["rev-parse", `refs/heads/${repo.defaultBranch}`], cwd: repo.dir });
      const workflow = await readWorkflow(sha);
      const payload =
        input.event === "schedule" ? fake.payloads.schedule({ repo: options.repo, cron: input.cron ?? "*/15 * * * *", workflow: workflowPath }) : input.payload;
      // A payload GitHub could never send would let a run pass here and fail on GitHub.
      if (input.event !== "schedule") assertWebhookPayload({ event: input.event, payload });
      // A comment the test feeds here is not run again from the fake's record of it.
      if (input.event === "issue_comment") repoEvents.takeComment((payload["comment"] as { id?: unknown } | undefined)?.id);
      if (!triggers(workflow.on, input.event, payload)) return null;
      const sender = (payload["sender"] as { login?: unknown } | undefined)?.login;
      const actor = typeof sender === "string" ? sender : repo.owner.login;
      return execute({ event: input.event, payload, ref: `refs/heads/${repo.defaultBranch}`, sha, actor, inputs: {}, fakeRunId: null }, workflow);
    },
    takeDispatches: () => {
      const fresh = fake.dispatches.slice(taken);
      taken = fake.dispatches.length;
      return fresh.filter((d) => `${d.owner}/${d.repo}`.toLowerCase() === options.repo.toLowerCase() && d.workflow === workflowPath);
    },
    runEvents: (input) => repoEvents.run(input?.events ?? ["push", "pull_request"]),
    close: () => rm(root, { recursive: true, force: true }),
  };
}
