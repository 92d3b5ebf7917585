/**
 * One job (one matrix leg) on its own machine: a fresh workspace, RUNNER_TEMP and HOME, the
 * event file, a token with exactly the job's permissions, the runner's variables, the steps in
 * order (a failed step skips the rest unless their `if:` says otherwise), the job's `outputs:`,
 * and at the end the machine thrown away with every process still running in it.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { lchown, mkdir, mkdtemp, realpath, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { AppPermissions } from "../fake-github/state.ts";
import type { RunTrigger } from "./events.ts";
import { startMachine, type Isolation } from "./machine.ts";
import type { Combination } from "./matrix.ts";
import { tokenPermissions, type DefaultPermissions } from "./permissions.ts";
import { runStep, type JobScope } from "./step-runner.ts";
import type { LocalAction } from "./action-steps.ts";
import { stringsOf, valueOfToken } from "./template-eval.ts";
import type { Conclusion, JobResult, StepResult } from "./types.ts";
import type { JobSpec, Workflow } from "./workflow.ts";

/** What every job of one run shares. */
export interface RunScope {
  readonly id: number;
  readonly runNumber: number;
  readonly trigger: RunTrigger;
  readonly workflow: Workflow;
  readonly repository: { readonly fullName: string; readonly id: number; readonly owner: string };
  readonly serverUrl: string;
  readonly apiUrl: string;
  /** Where the run's job folders go. */
  readonly root: string;
  readonly isolation: Isolation;
  readonly defaultPermissions: DefaultPermissions;
  readonly secrets: Readonly<Record<string, string>>;
  /** Variables every step gets, below the runner's own (a runner's `.env` file). */
  readonly extraEnv: Readonly<Record<string, string>>;
  readonly vars: Readonly<Record<string, string>>;
  /** Each job's `ACTIONS_RUNTIME_TOKEN` (the fake's results service takes it) and where that service is. */
  readonly runtime: { issue(jobId: number | null): string; revoke(token: string): void; readonly resultsUrl: string };
  /** Called before and after each step that runs (after: before GitHub shows it completed); plays processes of the job. */
  readonly stepHook?: (info: StepHookInfo) => Promise<void> | void;
  /** Folders jobs may read but not change (the action's repository). */
  readonly readOnly: readonly string[];
  /** Folders every job may write (a test's report folder). */
  readonly shared: readonly string[];
  readonly keepJobDirs: boolean;
  /** A cap on every job's time, below its `timeout-minutes` (default 360 minutes, as on GitHub). */
  readonly jobTimeoutMs: number;
  mint(permissions: AppPermissions): string;
  /** Ends a job's token: GitHub revokes `GITHUB_TOKEN` when its job completes. */
  revoke(token: string): void;
  resolveAction(uses: string): Promise<LocalAction | null>;
  isCancelled(): boolean;
}

/** What a step hook sees: the job's machine folders and its runtime token, as a process of the job would. */
export interface StepHookInfo {
  readonly runId: number;
  /** The job's id in the workflow. */
  readonly job: string;
  /** The leg's display name (`work m-1 a#1`). */
  readonly name: string;
  readonly matrix: Readonly<Record<string, unknown>> | null;
  readonly trigger: RunTrigger;
  readonly step: string;
  readonly phase: "before" | "after";
  readonly runnerTemp: string;
  readonly workspace: string;
  /** The job's `ACTIONS_RUNTIME_TOKEN` and the results service URL (`ACTIONS_RESULTS_URL`). */
  readonly runtimeToken: string;
  readonly resultsUrl: string;
}

export interface LegInput {
  /** The job's id in the fake GitHub (null: a run the fake does not record, such as a comment's). */
  readonly jobId: number | null;
  readonly run: RunScope;
  readonly job: JobSpec;
  readonly name: string;
  readonly matrix: Combination | null;
  readonly needs: Readonly<Record<string, { readonly result: Conclusion; readonly outputs: Readonly<Record<string, string>> }>>;
  readonly strategy: Readonly<Record<string, unknown>>;
  readonly concurrencyGroup: string | null;
  /** Set when a newer job of the concurrency group cancels this one (`cancel-in-progress`). */
  readonly abort?: { readonly requested: boolean };
  /**
   * Each step as the runner reports it while it runs: `Set up job` first, every step of the job
   * that starts (`in_progress`, then `completed`; a skipped step only `completed`), `Complete job`
   * last. The jobs API shows them, so a polled job list changes with every step, as on GitHub.
   */
  readonly reportStep?: (step: { number: number; name: string; status: "in_progress" | "completed"; conclusion?: string }) => void;
}

async function chown(path: string, user: { uid: number; gid: number } | null): Promise<void> {
  if (user === null) return;
  if (!(await stat(path)).isDirectory()) return lchown(path, user.uid, user.gid);
  return new Promise((resolve, reject) => {
    spawn("chown", ["-R", `${user.uid}:${user.gid}`, path], { stdio: "ignore" }).on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`chown -R ${path} failed (${String(code)})`)),
    );
  });
}

export async function runLeg(input: LegInput): Promise<JobResult> {
  const { run, job } = input;
  const repoName = run.repository.fullName.split("/")[1] ?? "repo";
  const jobDir = await realpath(await mkdtemp(join(run.root, `${job.id}-`)));
  const workspace = join(jobDir, "work", repoName, repoName);
  const runnerTemp = join(jobDir, "work", "_temp");
  const home = join(jobDir, "home");
  for (const dir of [workspace, join(runnerTemp, "_runner_file_commands"), join(runnerTemp, "_github_workflow"), home, join(jobDir, "toolcache")])
    await mkdir(dir, { recursive: true });
  const eventPath = join(runnerTemp, "_github_workflow", "event.json");
  await writeFile(eventPath, JSON.stringify(run.trigger.payload, null, 2));

  const permissions = tokenPermissions({ job: job.permissions, workflow: run.workflow.permissions, fallback: run.defaultPermissions });
  const token = run.mint(permissions);
  // Good for uploads to this run while the job runs, for any process that holds it (as on GitHub).
  const runtimeToken = run.runtime.issue(input.jobId);
  const trackingId = `github_${randomUUID()}`;
  const machine = await startMachine({ jobDir, trackingId, isolation: run.isolation, readOnly: run.readOnly, shared: run.shared });
  // A job past its time limit loses its machine (the running step dies) and its later steps.
  const minutes = Number(
    valueOfToken(job.timeoutMinutes, {
      contexts: {
        github: { event_name: run.trigger.event, event: run.trigger.payload },
        inputs: run.trigger.inputs,
        vars: run.vars,
        needs: input.needs,
        strategy: input.strategy,
        matrix: input.matrix ?? {},
      },
    }) ?? 360,
  );
  let timedOut = false;
  const timer = setTimeout(
    () => {
      timedOut = true;
      void machine.close();
    },
    Math.min(run.jobTimeoutMs, (Number.isFinite(minutes) ? minutes : 360) * 60_000),
  );
  await chown(jobDir, machine.user);

  const branch = run.trigger.ref.replace(/^refs\/heads\//, "");
  const github = {
    token,
    job: job.id,
    ref: run.trigger.ref,
    ref_name: branch,
    ref_type: "branch",
    sha: run.trigger.sha,
    repository: run.repository.fullName,
    repository_owner: run.repository.owner,
    repository_id: String(run.repository.id),
    run_id: String(run.id),
    run_number: String(run.runNumber),
    run_attempt: "1",
    actor: run.trigger.actor,
    triggering_actor: run.trigger.actor,
    event_name: run.trigger.event,
    event: run.trigger.payload,
    event_path: eventPath,
    workspace,
    action: "",
    workflow: run.workflow.name,
    workflow_ref: `${run.repository.fullName}/${run.workflow.path}@${run.trigger.ref}`,
    server_url: run.serverUrl,
    api_url: run.apiUrl,
    graphql_url: `${run.serverUrl}/api/graphql`,
    retention_days: "90",
    secret_source: "Actions",
  };
  const runner = { os: "Linux", arch: "X64", name: `sim-${job.id}`, temp: runnerTemp, tool_cache: join(jobDir, "toolcache"), environment: "github-hosted" };
  const contexts = {
    github,
    inputs: run.trigger.inputs,
    matrix: input.matrix ?? {},
    needs: input.needs,
    runner,
    vars: run.vars,
    secrets: { ...run.secrets, GITHUB_TOKEN: token },
    strategy: input.strategy,
    job: { status: "success", ...(input.jobId === null ? {} : { check_run_id: input.jobId }) },
  };
  const runnerEnv: Record<string, string> = {
    ...run.extraEnv,
    // A runner's .env may set PATH (its tool cache first); else this machine's.
    CI: "true",
    GITHUB_ACTIONS: "true",
    HOME: home,
    PATH: run.extraEnv["PATH"] ?? process.env["PATH"] ?? "/usr/bin:/bin",
    LANG: "C.UTF-8",
    GITHUB_ACTOR: github.actor,
    GITHUB_TRIGGERING_ACTOR: github.actor,
    GITHUB_API_URL: run.apiUrl,
    GITHUB_GRAPHQL_URL: github.graphql_url,
    GITHUB_SERVER_URL: run.serverUrl,
    GITHUB_EVENT_NAME: github.event_name,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_JOB: job.id,
    GITHUB_REF: github.ref,
    GITHUB_REF_NAME: branch,
    GITHUB_REF_TYPE: "branch",
    GITHUB_REPOSITORY: github.repository,
    GITHUB_REPOSITORY_OWNER: github.repository_owner,
    GITHUB_REPOSITORY_ID: github.repository_id,
    GITHUB_RUN_ID: github.run_id,
    GITHUB_RUN_NUMBER: github.run_number,
    GITHUB_RUN_ATTEMPT: "1",
    GITHUB_SHA: github.sha,
    GITHUB_WORKFLOW: github.workflow,
    GITHUB_WORKFLOW_REF: github.workflow_ref,
    GITHUB_WORKSPACE: workspace,
    GITHUB_RETENTION_DAYS: "90",
    RUNNER_OS: "Linux",
    RUNNER_ARCH: "X64",
    RUNNER_NAME: runner.name,
    RUNNER_ENVIRONMENT: "github-hosted",
    RUNNER_TEMP: runnerTemp,
    RUNNER_TOOL_CACHE: runner.tool_cache,
    RUNNER_WORKSPACE: join(jobDir, "work", repoName),
    RUNNER_TRACKING_ID: trackingId,
  };

  const steps: StepResult[] = [];
  let reason: string | null = null;
  let failed = false;
  let outputs: Record<string, string> = {};
  let orphansKilled = 0;
  const masks = new Set([token, runtimeToken, ...Object.values(run.secrets)]);
  const actionRuntimeEnv = {
    ACTIONS_RUNTIME_TOKEN: runtimeToken,
    ACTIONS_RUNTIME_URL: `${run.serverUrl}/_sim/pipelines/`,
    ACTIONS_RESULTS_URL: run.runtime.resultsUrl,
    ACTIONS_CACHE_URL: `${run.serverUrl}/_sim/artifactcache/`,
  };
  try {
    const jobEnv = { ...stringsOf(run.workflow.env, { contexts }), ...stringsOf(job.env, { contexts }) };
    const scope: JobScope = {
      machine,
      workspace,
      jobDir,
      runnerTemp,
      token,
      runId: run.id,
      runtime: { token: runtimeToken, resultsUrl: run.runtime.resultsUrl },
      runnerEnv,
      actionRuntimeEnv,
      jobEnv,
      addedEnv: {},
      contexts,
      steps: {},
      masks,
      github: { repository: github.repository, ref: github.ref, sha: github.sha, serverUrl: run.serverUrl, eventName: github.event_name },
      chown: (path) => chown(path, machine.user),
      resolveAction: (uses) => run.resolveAction(uses),
      isCancelled: () => run.isCancelled() || input.abort?.requested === true || timedOut,
    };
    const report = input.reportStep;
    report?.({ number: 1, name: "Set up job", status: "in_progress" });
    report?.({ number: 1, name: "Set up job", status: "completed", conclusion: "success" });
    const hook = async (step: string, phase: "before" | "after") =>
      run.stepHook?.({
        runId: run.id,
        job: job.id,
        name: input.name,
        matrix: input.matrix,
        trigger: run.trigger,
        step,
        phase,
        runnerTemp,
        workspace,
        runtimeToken,
        resultsUrl: run.runtime.resultsUrl,
      });
    for (const [index, spec] of job.steps.entries()) {
      const number = index + 2;
      const result = await runStep(scope, spec, failed, async (name) => {
        report?.({ number, name, status: "in_progress" });
        await hook(name, "before");
      });
      if (result.conclusion !== "skipped") await hook(result.name, "after");
      report?.({ number, name: result.name, status: "completed", conclusion: result.conclusion });
      steps.push(result);
      if (result.conclusion === "failure") failed = true;
    }
    report?.({ number: job.steps.length + 2, name: "Complete job", status: "in_progress" });
    report?.({ number: job.steps.length + 2, name: "Complete job", status: "completed", conclusion: "success" });
    outputs = stringsOf(job.outputs, { contexts: { ...contexts, steps: scope.steps, env: jobEnv } });
  } catch (error) {
    failed = true;
    reason = `the simulator failed to run the job: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
  } finally {
    clearTimeout(timer);
    orphansKilled = await machine.close();
    run.revoke(token);
    run.runtime.revoke(runtimeToken);
    if (!run.keepJobDirs) await rm(jobDir, { recursive: true, force: true });
  }
  // A cancel skips the remaining steps (their implicit success() is false).
  const cancelled = (run.isCancelled() || input.abort?.requested === true) && (failed || steps.some((s) => s.conclusion === "skipped"));
  return {
    job: job.id,
    name: input.name,
    matrix: input.matrix,
    result: timedOut ? "failure" : cancelled ? "cancelled" : failed ? "failure" : "success",
    reason:
      reason ??
      (timedOut ? "the job has exceeded its maximum execution time" : null) ??
      (failed ? `step "${steps.find((s) => s.conclusion === "failure")?.name ?? "?"}" failed` : null),
    outputs,
    steps,
    permissions,
    orphansKilled,
    concurrencyGroup: input.concurrencyGroup,
  };
}
