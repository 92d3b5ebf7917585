/** GitHub's shapes for workflow runs, jobs and check runs. */
import { actionsAppShape, appShape, nodeId, repoApi, repositoryShape, userShape, type Urls } from "./shapes.ts";
import { GITHUB_ACTIONS_APP_ID, isoTime, type CheckRunState, type JobState, type RepoState, type RunState, type World } from "./state.ts";

export function runShape(urls: Urls, repo: RepoState, run: RunState): Record<string, unknown> {
  const api = `${repoApi(urls, repo)}/actions/runs/${run.id}`;
  return {
    id: run.id,
    name: run.workflowName,
    node_id: nodeId("WorkflowRun", run.id),
    head_branch: run.headBranch,
    head_sha: run.headSha,
    path: run.workflowPath,
    display_title: run.displayTitle ?? run.workflowName,
    run_number: run.runNumber,
    event: run.event,
    status: run.status,
    conclusion: run.conclusion,
    workflow_id: run.workflowId,
    url: api,
    html_url: `${urls.web}/${repo.fullName}/actions/runs/${run.id}`,
    jobs_url: `${api}/jobs`,
    logs_url: `${api}/logs`,
    cancel_url: `${api}/cancel`,
    rerun_url: `${api}/rerun`,
    workflow_url: `${repoApi(urls, repo)}/actions/workflows/${run.workflowId}`,
    check_suite_url: `${repoApi(urls, repo)}/check-suites/${checkSuiteId(run)}`,
    artifacts_url: `${api}/artifacts`,
    check_suite_id: checkSuiteId(run),
    check_suite_node_id: nodeId("CheckSuite", checkSuiteId(run)),
    previous_attempt_url: run.runAttempt > 1 ? `${api}/attempts/${run.runAttempt - 1}` : null,
    referenced_workflows: [],
    pull_requests: [],
    created_at: isoTime(run.createdAt),
    updated_at: isoTime(run.updatedAt),
    run_attempt: run.runAttempt,
    run_started_at: isoTime(run.createdAt),
    actor: userShape(urls, run.actor),
    triggering_actor: userShape(urls, run.actor),
    head_commit: {
      id: run.headCommit.sha,
      tree_id: run.headCommit.tree,
      message: run.headCommit.message,
      timestamp: run.headCommit.committer.date,
      author: { name: run.headCommit.author.name, email: run.headCommit.author.email },
      committer: { name: run.headCommit.committer.name, email: run.headCommit.committer.email },
    },
    repository: repositoryShape(urls, repo),
    head_repository: repositoryShape(urls, repo),
    head_repository_id: repo.id,
  };
}

/** A runner's numeric id, stable per name. */
function runnerId(name: string): number {
  let hash = 0;
  for (const c of name) hash = (hash * 31 + c.charCodeAt(0)) % 1_000_000;
  return hash + 1;
}

/** The run's check suite: the fake keeps none, so its id is derived from the run's, stably. */
function checkSuiteId(run: RunState): number {
  return run.id + 1_000_000;
}

export function jobShape(urls: Urls, repo: RepoState, run: RunState, job: JobState): Record<string, unknown> {
  const api = repoApi(urls, repo);
  return {
    id: job.id,
    run_id: run.id,
    run_url: `${api}/actions/runs/${run.id}`,
    run_attempt: job.runAttempt,
    node_id: nodeId("CheckRun", job.id),
    head_sha: run.headSha,
    head_branch: run.headBranch,
    url: `${api}/actions/jobs/${job.id}`,
    html_url: `${urls.web}/${repo.fullName}/actions/runs/${run.id}/job/${job.id}`,
    status: job.status,
    conclusion: job.conclusion,
    created_at: isoTime(job.createdAt),
    // GitHub's schema has no null here: a queued job's `started_at` is when it was queued, and
    // moves to the runner's start once one takes it (actions/runner#1881).
    started_at: isoTime(job.startedAt ?? job.createdAt),
    completed_at: job.completedAt === null ? null : isoTime(job.completedAt),
    name: job.name,
    steps: job.steps.map((step) => ({
      name: step.name,
      status: step.status,
      conclusion: step.conclusion,
      number: step.number,
      started_at: step.startedAt === null ? null : isoTime(step.startedAt),
      completed_at: step.completedAt === null ? null : isoTime(step.completedAt),
    })),
    check_run_url: `${api}/check-runs/${job.id}`,
    labels: [...job.labels],
    runner_id: job.runnerName === null ? null : runnerId(job.runnerName),
    runner_name: job.runnerName,
    runner_group_id: job.runnerName === null ? null : 1,
    runner_group_name: job.runnerName === null ? null : "Default",
    workflow_name: run.workflowName,
  };
}

export function checkRunShape(urls: Urls, world: World, repo: RepoState, check: CheckRunState): Record<string, unknown> {
  const api = `${repoApi(urls, repo)}/check-runs/${check.id}`;
  return {
    id: check.id,
    node_id: nodeId("CheckRun", check.id),
    head_sha: check.headSha,
    external_id: check.externalId,
    url: api,
    html_url: `${urls.web}/${repo.fullName}/runs/${check.id}`,
    details_url: check.detailsUrl,
    status: check.status,
    conclusion: check.conclusion,
    started_at: check.startedAt === null ? null : isoTime(check.startedAt),
    completed_at: check.completedAt === null ? null : isoTime(check.completedAt),
    output: {
      title: check.output.title,
      summary: check.output.summary,
      text: check.output.text,
      annotations_count: check.output.annotationsCount,
      annotations_url: `${api}/annotations`,
    },
    name: check.name,
    check_suite: { id: check.id + 1 },
    app: check.appId === GITHUB_ACTIONS_APP_ID ? actionsAppShape(urls) : appShape(urls, world),
    pull_requests: [],
  };
}
