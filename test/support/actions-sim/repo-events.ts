/**
 * The repository's own workflows for what was done to it, as GitHub starts them: each `push`,
 * `pull_request` and `issue_comment` event the fake recorded that starts workflows (not one
 * made with a job's `GITHUB_TOKEN`) runs every workflow of `.github/workflows/` whose `on:`
 * matches — read at the event's commit for a push or pull request, at the default branch's head
 * for a comment (GitHub runs `issue_comment` workflows from the default branch).
 */
import { gitText } from "../../../src/git/run-git.ts";
import { assertWebhookPayload, type FakeGitHub, type RepoEventState } from "../fake-github/index.ts";
import type { testGit } from "../git-repo.ts";
import { branchMatches } from "./branch-filter.ts";
import { triggers, type RunTrigger } from "./events.ts";
import type { RunResult } from "./types.ts";
import { parseWorkflow, type Workflow } from "./workflow.ts";

export type RepoEventKind = RepoEventState["event"];

export interface RepoEventRunner {
  /** Runs the events of `kinds` not run yet; resolves with their runs, in the order of the events. */
  run(kinds: readonly RepoEventKind[]): Promise<RunResult[]>;
  /** A comment the caller ran itself (`trigger`): its recorded event is not run again. */
  takeComment(commentId: unknown): void;
}

export function createRepoEventRunner(deps: {
  readonly fake: FakeGitHub;
  readonly repo: string;
  readonly git: ReturnType<typeof testGit>;
  /** Runs `workflow` for `trigger`; `checksOn`: the commit each job reports a check run on. */
  readonly execute: (trigger: RunTrigger, workflow: Workflow, checksOn: string | null) => Promise<RunResult>;
}): RepoEventRunner {
  const { fake, git } = deps;
  const repoState = () => fake.repo(deps.repo);
  const taken = new Set<number>();
  /** Workflow files by blob: the same file is read once however many events it is checked for. */
  const parsed = new Map<string, Workflow | null>();

  const workflowsAt = async (sha: string): Promise<Workflow[]> => {
    const repo = repoState();
    const listing = await gitText(git, { args: ["ls-tree", `${sha}:.github/workflows`], cwd: repo.dir }).catch(() => "");
    const files = listing
      .split("\n")
      .map((line) => /^\d+ blob ([0-9a-f]+)\t(.+\.ya?ml)$/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ blob: m[1] ?? "", path: `.github/workflows/${m[2] ?? ""}` }));
    const workflows: Workflow[] = [];
    for (const file of files) {
      // A workflow GitHub cannot read runs nothing here (GitHub shows a failed run for it).
      let workflow = parsed.get(file.blob);
      if (workflow === undefined) {
        workflow = await gitText(git, { args: ["cat-file", "blob", file.blob], cwd: repo.dir })
          .then((text) => parseWorkflow(text, file.path))
          .catch(() => null);
        parsed.set(file.blob, workflow);
      }
      if (workflow !== null) workflows.push(workflow);
    }
    return workflows;
  };

  const runEvent = async (event: RepoEventState): Promise<RunResult[]> => {
    const repo = repoState();
    const results: RunResult[] = [];
    if (event.event === "issue_comment") {
      const sha = await gitText(git, { args: ["rev-parse", `refs/heads/${repo.defaultBranch}`], cwd: repo.dir });
      const payload = fake.payloads.issueComment({ repo: deps.repo, commentId: event.comment, sender: event.actor.login });
      assertWebhookPayload({ event: "issue_comment", payload });
      for (const workflow of await workflowsAt(sha)) {
        if (!triggers(workflow.on, "issue_comment", payload)) continue;
        const trigger: RunTrigger = {
          event: "issue_comment",
          payload,
          ref: `refs/heads/${repo.defaultBranch}`,
          sha,
          actor: event.actor.login,
          inputs: {},
          fakeRunId: null,
        };
        results.push(await deps.execute(trigger, workflow, null));
      }
      return results;
    }
    // The payload describes the pull request as it is now (the simulator runs events after the fact).
    let payload: Record<string, unknown> | null = null;
    const payloadOf = async (): Promise<Record<string, unknown>> => {
      payload ??=
        event.event === "push"
          ? await fake.payloads.push({ repo: deps.repo, ref: event.ref, before: event.before, after: event.after, sender: event.actor.login })
          : await fake.payloads.pullRequest({ repo: deps.repo, number: event.pull ?? 0, action: event.action ?? "opened", sender: event.actor.login });
      assertWebhookPayload({ event: event.event, payload });
      return payload;
    };
    const base = event.event === "pull_request" ? (repo.pulls.get(event.pull ?? 0)?.baseRef ?? repo.defaultBranch) : event.ref.replace(/^refs\/heads\//, "");
    for (const workflow of await workflowsAt(event.after)) {
      const action = event.action === null ? {} : { action: event.action };
      if (!triggers(workflow.on, event.event, action) || !branchMatches(workflow.on[event.event], base)) continue;
      const ref = event.event === "push" ? event.ref : `refs/pull/${event.pull ?? 0}/merge`;
      const trigger: RunTrigger = {
        event: event.event,
        payload: await payloadOf(),
        ref,
        sha: event.after,
        actor: event.actor.login,
        inputs: {},
        fakeRunId: null,
      };
      results.push(await deps.execute(trigger, workflow, event.after));
    }
    return results;
  };

  return {
    run: async (kinds) => {
      const fresh = repoState().events.filter((e) => !taken.has(e.id) && kinds.includes(e.event));
      for (const event of fresh) taken.add(event.id);
      const results: RunResult[] = [];
      for (const event of fresh) if (event.startsWorkflows) results.push(...(await runEvent(event)));
      return results;
    },
    takeComment: (commentId) => {
      for (const e of repoState().events) if (e.event === "issue_comment" && e.comment === commentId) taken.add(e.id);
    },
  };
}
