/**
 * Webhook payloads that start from GitHub's recorded examples (@octokit/webhooks-examples)
 * and carry the fake's own objects: the same ids, numbers, shas and URLs the REST API answers
 * with, so an app that reads a payload and then calls the API finds what the payload names.
 */
import { createRequire } from "node:module";
import { pullShape } from "./routes/pulls.ts";
import { commentShape, issueShape, nodeId, repoShape, userShape, type Urls } from "./shapes.ts";
import { jobShape, runShape } from "./shapes-actions.ts";
import { findAccount, type Account, type RepoState, type World } from "./state.ts";

type Payload = Record<string, unknown>;
interface Definition {
  readonly name: string;
  readonly examples: readonly Payload[];
}

const DEFINITIONS = createRequire(import.meta.url)("@octokit/webhooks-examples") as readonly Definition[];

/** A deep copy of the first recorded example of `event` with `action`. */
export function example(event: string, action: string): Payload {
  const found = DEFINITIONS.find((d) => d.name === event)?.examples.find((e) => e["action"] === action);
  if (found === undefined) throw new Error(`@octokit/webhooks-examples has no ${event}.${action} example`);
  return structuredClone(found);
}

function merge(base: unknown, ours: Payload): Payload {
  return { ...(typeof base === "object" && base !== null ? (base as Payload) : {}), ...ours };
}

export interface PayloadBuilders {
  issueComment(input: { repo: string; commentId: number; action?: "created" | "edited" | "deleted"; sender?: string }): Payload;
  pullRequest(input: { repo: string; number: number; action: string; sender?: string }): Promise<Payload>;
  workflowRun(input: { repo: string; runId: number; action: "requested" | "in_progress" | "completed"; sender?: string }): Payload;
  workflowJob(input: { repo: string; runId: number; jobId: number; action: "queued" | "in_progress" | "completed" | "waiting"; sender?: string }): Payload;
}

export function createPayloadBuilders(world: World, urls: () => Urls): PayloadBuilders {
  const repoOf = (fullName: string): RepoState => {
    const repo = world.repos.get(fullName.toLowerCase());
    if (repo === undefined) throw new Error(`no repository ${fullName}`);
    return repo;
  };
  const common = (event: string, action: string, repo: RepoState, sender: Account): Payload => {
    const installation = [...world.installations.values()].find((i) => i.account.id === repo.owner.id);
    return {
      ...example(event, action),
      action,
      repository: merge(example(event, action)["repository"], repoShape(urls(), repo)),
      sender: merge(example(event, action)["sender"], userShape(urls(), sender)),
      ...(installation === undefined ? {} : { installation: { id: installation.id, node_id: nodeId("Installation", installation.id) } }),
    };
  };
  const senderOr = (login: string | undefined, fallback: Account): Account =>
    login === undefined ? fallback : (findAccount(world, login) ?? fallback);
  const runOf = (repo: RepoState, runId: number) => {
    const run = repo.runs.get(runId);
    if (run === undefined) throw new Error(`no run ${runId} in ${repo.fullName}`);
    return run;
  };

  return {
    issueComment: ({ repo: name, commentId, action = "created", sender }) => {
      const repo = repoOf(name);
      const comment = repo.comments.get(commentId);
      const issue = comment === undefined ? undefined : repo.issues.get(comment.issueNumber);
      if (comment === undefined || issue === undefined) throw new Error(`no comment ${commentId} in ${name}`);
      const base = common("issue_comment", action, repo, senderOr(sender, comment.user));
      return {
        ...base,
        issue: merge(base["issue"], issueShape(urls(), repo, issue)),
        comment: merge(base["comment"], commentShape(urls(), world, repo, comment)),
      };
    },
    pullRequest: async ({ repo: name, number, action, sender }) => {
      const repo = repoOf(name);
      const issue = repo.issues.get(number);
      const pull = repo.pulls.get(number);
      if (issue === undefined || pull === undefined) throw new Error(`no pull request #${number} in ${name}`);
      const base = common("pull_request", action, repo, senderOr(sender, issue.user));
      return { ...base, number, pull_request: merge(base["pull_request"], await pullShape({ urls: urls(), repo, git: world.gits.get(repo.dir) }, pull)) };
    },
    workflowRun: ({ repo: name, runId, action, sender }) => {
      const repo = repoOf(name);
      const run = runOf(repo, runId);
      const base = common("workflow_run", action === "in_progress" ? "requested" : action, repo, senderOr(sender, run.actor));
      return {
        ...base,
        action,
        workflow_run: merge(base["workflow_run"], runShape(urls(), repo, run)),
        workflow: merge(base["workflow"], { id: run.workflowId, name: run.workflowName, path: run.workflowPath, state: "active" }),
      };
    },
    workflowJob: ({ repo: name, runId, jobId, action, sender }) => {
      const repo = repoOf(name);
      const run = runOf(repo, runId);
      const job = run.jobs.find((j) => j.id === jobId);
      if (job === undefined) throw new Error(`no job ${jobId} in run ${runId}`);
      const base = common("workflow_job", action, repo, senderOr(sender, run.actor));
      return { ...base, workflow_job: merge(base["workflow_job"], jobShape(urls(), repo, run, job)) };
    },
  };
}
