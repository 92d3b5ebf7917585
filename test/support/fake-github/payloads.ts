/**
 * Webhook payloads that start from GitHub's recorded examples (@octokit/webhooks-examples,
 * payload-examples.ts) and carry the fake's own objects: the same ids, numbers, shas and URLs
 * the REST API answers with, so an app that reads a payload and then calls the API finds what
 * the payload names. Every builder's payload passes @octokit/webhooks-schemas
 * (test/fake-github/webhook-payloads.test.ts), and `deliver()` refuses one that does not.
 */
import { pullShape } from "./routes/pulls.ts";
import { commentShape, issueShape, nodeId, repoShape, userShape, type Urls } from "./shapes.ts";
import { jobShape, runShape } from "./shapes-actions.ts";
import { example, isPlainObject, overlay, overlayKnown, type Payload } from "./payload-examples.ts";
import { findAccount, type Account, type DispatchRecord, type RepoState, type World } from "./state.ts";

export { example } from "./payload-examples.ts";

export interface PayloadBuilders {
  issueComment(input: { repo: string; commentId: number; action?: "created" | "edited" | "deleted"; sender?: string }): Payload;
  pullRequest(input: { repo: string; number: number; action: string; sender?: string }): Promise<Payload>;
  /**
   * A branch pushed (`before` null: created; `after` null: deleted): what a `push` workflow run
   * finds at `GITHUB_EVENT_PATH`, and the App's `push` webhook.
   */
  push(input: { repo: string; ref: string; before: string | null; after: string | null; sender: string; forced?: boolean }): Promise<Payload>;
  workflowRun(input: { repo: string; runId: number; action: "requested" | "in_progress" | "completed"; sender?: string }): Payload;
  workflowJob(input: { repo: string; runId: number; jobId: number; action: "queued" | "in_progress" | "completed" | "waiting"; sender?: string }): Payload;
  /** What a run started by `dispatch` finds at `GITHUB_EVENT_PATH` (and an app gets as `workflow_dispatch`). */
  workflowDispatch(input: { dispatch: DispatchRecord }): Payload;
  /**
   * A `schedule` run's event. No webhook and no published schema: GitHub documents only
   * `schedule` and `workflow`; the repository (and organization) are those every event carries.
   */
  schedule(input: { repo: string; cron: string; workflow: string }): Payload;
}

/** GitHub's `organization` object for an organization account (webhooks name the owner so). */
function organizationShape(urls: Urls, account: Account): Payload {
  const api = `${urls.api}/orgs/${account.login}`;
  return {
    login: account.login,
    id: account.id,
    node_id: nodeId("Organization", account.id),
    url: api,
    repos_url: `${api}/repos`,
    events_url: `${api}/events`,
    hooks_url: `${api}/hooks`,
    issues_url: `${api}/issues`,
    members_url: `${api}/members{/member}`,
    public_members_url: `${api}/public_members{/member}`,
    avatar_url: `${urls.web}/avatars/${account.id}`,
    description: null,
  };
}

/**
 * A comment naruto wrote through the App names the App in `performed_via_github_app`. The
 * issue_comment recordings have none there (null), so the App object is laid over GitHub's
 * recording of an App (a check run's) instead of taken whole from the REST shape.
 */
function withApp(comment: Payload, shape: Payload): Payload {
  const app = shape["performed_via_github_app"];
  if (!isPlainObject(app)) return comment;
  const recorded = example("check_run", "created")["check_run"];
  return { ...comment, performed_via_github_app: overlayKnown(isPlainObject(recorded) ? recorded["app"] : undefined, app) };
}

export function createPayloadBuilders(world: World, urls: () => Urls): PayloadBuilders {
  const repoOf = (fullName: string): RepoState => {
    const repo = world.repos.get(fullName.toLowerCase());
    if (repo === undefined) throw new Error(`no repository ${fullName}`);
    return repo;
  };
  /**
   * The envelope every event shares. The recording's `organization` and `installation` name
   * GitHub's test accounts: they are replaced by the fake's, or left out where the fake has none.
   * The fake's REST shapes are laid over the recording field by field (`overlayKnown`): a webhook
   * object has the fields GitHub records for it, not every field of the REST answer.
   */
  const envelope = (input: { event: string; action: string | null; repo: RepoState; sender: Account; recording?: string }): Payload => {
    const { repo } = input;
    const base = example(input.event, input.recording ?? input.action);
    const { organization: _org, installation: _inst, ...rest } = base;
    const installation = [...world.installations.values()].find((i) => i.account.id === repo.owner.id);
    return {
      ...rest,
      ...(input.action === null ? {} : { action: input.action }),
      repository: overlayKnown(base["repository"], repoShape(urls(), repo)),
      sender: overlayKnown(base["sender"], userShape(urls(), input.sender)),
      ...(repo.owner.type === "Organization" ? { organization: organizationShape(urls(), repo.owner) } : {}),
      ...(installation === undefined ? {} : { installation: { id: installation.id, node_id: nodeId("Installation", installation.id) } }),
    };
  };
  const senderOr = (login: string | undefined, fallback: Account): Account => (login === undefined ? fallback : (findAccount(world, login) ?? fallback));
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
      const base = envelope({ event: "issue_comment", action, repo, sender: senderOr(sender, comment.user) });
      // Not modelled by the fake, so GitHub's empty values rather than the recording's people.
      const { pull_request: _pull, ...recorded } = overlay(base["issue"], { assignee: null, assignees: [], milestone: null });
      const shape = issueShape(urls(), repo, issue);
      const written = commentShape(urls(), world, repo, comment);
      // Whether the issue is a pull request is the fake's to say, whatever the recording was.
      const pullRequest = shape["pull_request"];
      return {
        ...base,
        issue: { ...overlayKnown(recorded, shape), ...(pullRequest === undefined ? {} : { pull_request: pullRequest }) },
        comment: withApp(overlayKnown(base["comment"], written), written),
      };
    },
    pullRequest: async ({ repo: name, number, action, sender }) => {
      const repo = repoOf(name);
      const issue = repo.issues.get(number);
      const pull = repo.pulls.get(number);
      if (issue === undefined || pull === undefined) throw new Error(`no pull request #${number} in ${name}`);
      const base = envelope({ event: "pull_request", action, repo, sender: senderOr(sender, issue.user) });
      const recorded = overlay(base["pull_request"], {
        assignee: null,
        assignees: [],
        requested_reviewers: [],
        requested_teams: [],
        milestone: null,
        labels: [],
      });
      return { ...base, number, pull_request: overlayKnown(recorded, await pullShape({ urls: urls(), repo, git: world.gits.get(repo.dir) }, pull)) };
    },
    push: async ({ repo: name, ref, before, after, sender, forced }) => {
      const repo = repoOf(name);
      const account = findAccount(world, sender) ?? repo.owner;
      const base = envelope({ event: "push", action: null, repo, sender: account });
      const zero = "0".repeat(40);
      if (after === null) {
        // A deletion: no commit, nothing compared (GitHub's `compare` then names the old head).
        return {
          ...base,
          ref,
          before: before ?? zero,
          after: zero,
          created: false,
          deleted: true,
          forced: false,
          base_ref: null,
          compare: `${urls().web}/${repo.fullName}/compare/${(before ?? zero).slice(0, 12)}...000000000000`,
          commits: [],
          head_commit: null,
          pusher: { name: account.login, email: null },
        };
      }
      const commit = await world.gits.get(repo.dir).readCommit(after);
      if (commit === null) throw new Error(`no commit ${after} in ${name}`);
      const headCommit = {
        id: commit.sha,
        tree_id: commit.tree,
        distinct: true,
        message: commit.message,
        timestamp: commit.committer.date,
        url: `${urls().web}/${repo.fullName}/commit/${commit.sha}`,
        author: { name: commit.author.name, email: commit.author.email },
        committer: { name: commit.committer.name, email: commit.committer.email },
        added: [],
        removed: [],
        modified: [],
      };
      return {
        ...base,
        ref,
        before: before ?? zero,
        after,
        created: before === null,
        deleted: false,
        forced: forced ?? false,
        base_ref: null,
        compare: `${urls().web}/${repo.fullName}/compare/${(before ?? zero).slice(0, 12)}...${after.slice(0, 12)}`,
        commits: [headCommit],
        head_commit: headCommit,
        pusher: { name: account.login, email: null },
      };
    },
    workflowRun: ({ repo: name, runId, action, sender }) => {
      const repo = repoOf(name);
      const run = runOf(repo, runId);
      // GitHub's recordings have no `in_progress` run: it is a `requested` one that started.
      const recording = action === "in_progress" ? "requested" : action;
      const base = envelope({ event: "workflow_run", action, recording, repo, sender: senderOr(sender, run.actor) });
      return {
        ...base,
        workflow_run: overlayKnown(base["workflow_run"], runShape(urls(), repo, run)),
        workflow: overlayKnown(base["workflow"], {
          id: run.workflowId,
          node_id: nodeId("Workflow", run.workflowId),
          name: run.workflowName,
          path: run.workflowPath,
          state: "active",
        }),
      };
    },
    workflowJob: ({ repo: name, runId, jobId, action, sender }) => {
      const repo = repoOf(name);
      const run = runOf(repo, runId);
      const job = run.jobs.find((j) => j.id === jobId);
      if (job === undefined) throw new Error(`no job ${jobId} in run ${runId}`);
      const base = envelope({ event: "workflow_job", action, repo, sender: senderOr(sender, run.actor) });
      return { ...base, workflow_job: overlayKnown(base["workflow_job"], jobShape(urls(), repo, run, job)) };
    },
    workflowDispatch: ({ dispatch }) => {
      const repo = repoOf(`${dispatch.owner}/${dispatch.repo}`);
      // The run keeps the account (a later rename does not change who dispatched).
      const actor = repo.runs.get(dispatch.runId)?.actor ?? findAccount(world, dispatch.actor);
      if (actor === undefined) throw new Error(`no account ${dispatch.actor} (the dispatch's actor)`);
      const base = envelope({ event: "workflow_dispatch", action: null, repo, sender: actor });
      // The inputs as the dispatch gave them, defaults filled in: strings, `{}` for none (as recorded).
      return { ...base, inputs: { ...dispatch.inputs }, ref: `refs/heads/${dispatch.ref}`, workflow: dispatch.workflow };
    },
    schedule: ({ repo: name, cron, workflow }) => {
      const repo = repoOf(name);
      const { repository, organization } = envelope({ event: "workflow_dispatch", action: null, repo, sender: repo.owner });
      return { schedule: cron, workflow, repository, ...(organization === undefined ? {} : { organization }) };
    },
  };
}
