/**
 * `/naruto` on pull requests through `handleComment`, against the fake GitHub: `acme/demo` with
 * the workflow template and a config, a pull request `users-api` → `main` whose base moved on
 * after it branched (so its merge base is not main's head), one from a fork, users, and the deps
 * a `command` job (or the App) passes in.
 */
import { readFile } from "node:fs/promises";
import { commentEventOf } from "../../src/github-driver/event-payload.ts";
import { createGitHub, type GitHubPort } from "../../src/github/index.ts";
import { createGitHubMissionStore } from "../../src/store/index.ts";
import type { CommentDeps, CommentEvent, CommentOutcome } from "../../src/github-driver/handle-comment.ts";
import { handleComment } from "../../src/github-driver/handle-comment.ts";
import type { Mission } from "../../src/mission/document.ts";
import { startFakeGitHub, type FakeGitHub } from "../support/fake-github/index.ts";

export const REPO = "acme/demo";
export const BOT = "github-actions[bot]";
const TEMPLATE = new URL("../../templates/naruto.yml", import.meta.url);
const FAST = { retry: { retries: 2, baseDelayMs: 5 }, throttle: { writeIntervalMs: 0, notificationIntervalMs: 0 }, sleep: () => Promise.resolve() } as const;
/** The `command` job's token (templates/naruto.yml). */
const COMMAND_JOB = { metadata: "read", contents: "write", issues: "write", pull_requests: "write", actions: "write" } as const;

export const CONFIG = `agents:
  default:
    command: "true"
  reviewer:
    command: "echo '{\\"verdict\\": \\"approve\\", \\"summary\\": \\"fine\\", \\"findings\\": []}'"
arbiter:
  agent: reviewer
`;

export interface PullWorld {
  readonly fake: FakeGitHub;
  /** The port as the maintainer (reads what naruto did). */
  readonly github: GitHubPort;
  /** The pull request `users-api` → `main`. */
  readonly pull: number;
  /** A pull request from the fork `octo-forker/demo` (branch `typo`) → `main`, and its head. */
  readonly forkPull: number;
  readonly forkHead: string;
  readonly mainAtBranch: string;
  readonly mainNow: string;
  readonly head: string;
  /** Posts `body` as `user` on `issue` (default: the pull request) and handles it as the command job would. */
  command(
    body: string,
    options?: { user?: string; issue?: number; deps?: (d: CommentDeps) => CommentDeps },
  ): Promise<{ event: CommentEvent; outcome: CommentOutcome }>;
  /** Handles an event again (a redelivery). */
  handle(event: CommentEvent): Promise<CommentOutcome>;
  mission(id: string): Promise<Mission | null>;
  /** Comments on an issue or pull request, oldest first. */
  comments(issue: number): { body: string; user: string }[];
  close(): Promise<void>;
}

export async function commitFiles(github: GitHubPort, parent: string, files: Record<string, string>, message: string): Promise<string> {
  const { tree } = await github.getCommit(parent);
  const entries = await Promise.all(Object.entries(files).map(async ([path, text]) => ({ path, mode: "100644" as const, sha: await github.createBlob(text) })));
  return github.createCommit({ message, tree: await github.createTree({ entries, base: tree }), parents: [parent] });
}

export async function startPullWorld(input: { config?: string } = {}): Promise<PullWorld> {
  const fake = await startFakeGitHub();
  await fake.createRepo({
    owner: "acme",
    name: "demo",
    files: {
      "README.md": "# demo\n",
      ".github/workflows/naruto.yml": await readFile(TEMPLATE, "utf8"),
      ".github/naruto.yml": input.config ?? CONFIG,
      "src/users.ts": "export const users = [];\n",
      "src/orders.ts": "export const orders = [];\n",
      "docs/api.md": "# API\n",
    },
    issues: [{ title: "Plain issue" }],
  });
  const maintainer = fake.addUser("octo-maintainer", { permission: "write" }).token;
  fake.addUser("octo-outsider", { permission: "read" });
  fake.addUser("octo-reviewer", { permission: "read" });
  const repo = { owner: "acme", repo: "demo" };
  const github = createGitHub({ token: maintainer, repo, baseUrl: fake.url, userAgent: "naruto-tests", ...FAST });
  const mainAtBranch = (await github.getRef("refs/heads/main")) ?? "";
  const head = await commitFiles(
    github,
    mainAtBranch,
    {
      "src/users.ts": "export const users = [] as string[];\n",
      "src/orders.ts": "export const orders = [] as number[];\n",
      "docs/api.md": "# API\n\nUsers and orders.\n",
    },
    "users api",
  );
  await github.createRef({ ref: "refs/heads/users-api", sha: head });
  const mainNow = await commitFiles(github, mainAtBranch, { "README.md": "# demo\n\nMoved on.\n" }, "main moves on");
  await github.updateRef({ ref: "refs/heads/main", sha: mainNow });
  const pull = (await github.createPullRequest({ head: "users-api", base: "main", title: "Add the users API", body: "Types for users and orders." })).number;
  fake.addUser("octo-forker", { permission: "read" });
  const forkHead = await commitFiles(github, mainAtBranch, { "docs/api.md": "# The API\n" }, "fix a heading");
  const forkPull = await fake.openForkPullRequest({
    repo: REPO,
    forkOwner: "octo-forker",
    headRef: "typo",
    head: forkHead,
    base: "main",
    title: "Fix a heading",
    body: "From my fork.",
  });

  const handle = (event: CommentEvent, extend?: (d: CommentDeps) => CommentDeps) => {
    const { token } = fake.issueAppToken({ owner: "acme", permissions: COMMAND_JOB, bot: BOT });
    const jobGithub = createGitHub({ token, repo, baseUrl: fake.url, userAgent: "naruto-tests", ...FAST });
    const deps: CommentDeps = {
      github: jobGithub,
      store: createGitHubMissionStore({ github: jobGithub }),
      now: () => new Date(fake.now()),
      workflow: "naruto.yml",
      ref: "main",
      log: { info: () => undefined, warning: () => undefined },
      botLogin: BOT,
      runUrl: `${fake.url}/${REPO}/actions/runs/1`,
      configPath: ".github/naruto.yml",
      selfLogins: [BOT],
      pullRequestHead: async (number) => {
        const pr = await jobGithub.getPullRequest({ number });
        return pr === null ? null : { ref: pr.head.ref, sha: pr.head.sha, fromFork: pr.fromFork };
      },
    };
    return handleComment(extend ? extend(deps) : deps, event);
  };

  return {
    fake,
    github,
    pull,
    forkPull,
    forkHead,
    mainAtBranch,
    mainNow,
    head,
    async command(body, options = {}) {
      const user = options.user ?? "octo-maintainer";
      const response = await fetch(`${fake.url}/repos/${REPO}/issues/${options.issue ?? pull}/comments`, {
        method: "POST",
        headers: { authorization: `token ${fake.tokenFor(user)}`, "content-type": "application/json" },
        body: JSON.stringify({ body }),
      });
      const created = (await response.json()) as { id: number };
      const event = commentEventOf("issue_comment", fake.payloads.issueComment({ repo: REPO, commentId: created.id }));
      if (event === null) throw new Error("the fake's payload is not an issue_comment event naruto reads");
      return { event, outcome: await handle(event, options.deps) };
    },
    handle: (event) => handle(event),
    mission: async (id) => (await createGitHubMissionStore({ github }).load(id))?.mission ?? null,
    comments: (issue) => [...fake.repo(REPO).comments.values()].filter((c) => c.issueNumber === issue).map((c) => ({ body: c.body, user: c.user.login })),
    async close() {
      fake.assertNoViolations();
      await fake.close();
    },
  };
}
