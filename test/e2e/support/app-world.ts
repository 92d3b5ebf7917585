/**
 * The world of an App end-to-end scenario (`app-…`): the fake GitHub with `acme/demo` holding
 * naruto's workflow template and a config; the naruto App as its own process (`src/app/main.ts`)
 * pointed at the fake through GHE_HOST/GHE_PROTOCOL, as a GitHub Enterprise Server; comments
 * delivered to it as signed webhooks over HTTP; and the Actions simulator running the runs the
 * App dispatches, through the bundled Action, announcing each run's progress to the App with
 * `workflow_run` / `workflow_job` webhooks.
 *
 * With the App installed, the App takes the comments: comment webhooks go to the App only, and
 * the workflow's `issue_comment` run (the app-less `command` job) is never triggered here.
 *
 * Everything a scenario checks comes from the fake: refs, comments, pull requests, reactions,
 * dispatches, deliveries and the requests the App made, and the mission state through the
 * GitHub mission store.
 *
 * @example
 *   await withAppWorld({ config }, async (world) => {
 *     const { commentId } = await world.comment({ as: "octo-maintainer", body: "/naruto add a file" });
 *     await world.settle();
 *     const mission = await world.mission(missionIdFor(REPO, commentId));
 *   });
 */
import { chmod, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gitText } from "../../../src/git/run-git.ts";
import { createGitHub, type GitHubPort } from "../../../src/github/index.ts";
import { createGitHubMissionStore } from "../../../src/store/index.ts";
import type { Mission } from "../../../src/mission/document.ts";
import {
  createActionsSimulator,
  RunawayError,
  type ActionsSimulator,
  type JobHookInfo,
  type StepHookInfo,
  type RunResult,
  type SimulatorOptions,
} from "../../support/actions-sim/index.ts";
import { runWebhooks, type RunWebhooks } from "../../support/actions-sim/webhooks.ts";
import { startFakeGitHub, type DeliveryResult, type FakeGitHub, type Role } from "../../support/fake-github/index.ts";
import type { RepoState } from "../../support/fake-github/index.ts";
import { testGit } from "../../support/git-repo.ts";
import { startAppProcess, type AppProcess } from "./app-process.ts";
import { REPO, REPO_ROOT, requireAction } from "./world.ts";

export { REPO } from "./world.ts";

type CommentState = RepoState["comments"] extends Map<number, infer C> ? C : never;

export const WEBHOOK_SECRET = "e2e-webhook-secret";
export const MAINTAINER = "octo-maintainer";

export interface AppWorldInput {
  /** `.github/naruto.yml` of the repository; a function gets the folder every job shares (`reports`). */
  readonly config: string | ((reports: string) => string);
  /** More files of the first commit. */
  readonly files?: Readonly<Record<string, string>>;
  /** Users with their role on `acme/demo` (default: `octo-maintainer` with write). */
  readonly users?: Readonly<Record<string, Role>>;
  /** Issues to open, numbered from 1 (default: one issue by the maintainer). */
  readonly issues?: readonly { title: string; body?: string; user?: string }[];
  /** A public repository lets users without any role comment (default: private). */
  readonly public?: boolean;
  /**
   * APP_SLUG of the App process: the fake app's slug by default; null leaves it unset, so the
   * App asks GitHub (`GET /app`) at start.
   */
  readonly appSlug?: string | null;
  /** More environment of the App process (LOG_LEVEL, NARUTO_TRACKING_INTERVAL_MS …). */
  readonly appEnv?: Readonly<Record<string, string>>;
  /**
   * Repository variables the workflow sees, over the App installation's defaults: NARUTO_APP
   * (the App takes the comments) and NARUTO_BOT_LOGIN (the login of naruto's comments).
   */
  readonly vars?: Readonly<Record<string, string>>;
  /**
   * Whether the App gets a `push` webhook for every branch moved (as app.yml subscribes it; default
   * false: the scenarios written before the subscription do not need them).
   */
  readonly pushWebhooks?: boolean;
  /** Whether runs announce themselves to the App with workflow_run/workflow_job webhooks (default true). */
  readonly runWebhooks?: boolean;
  readonly beforeJob?: (info: JobHookInfo) => Promise<void> | void;
  /** Before and after each step of each job: a test playing a process of that job (see the simulator's `stepHook`). */
  readonly stepHook?: (info: StepHookInfo) => Promise<void> | void;
  /**
   * Runs at once (default 1: one after the other, deterministic). More plays GitHub running a
   * mission's runs side by side: a run the App dispatches while others run starts at once.
   */
  readonly parallelRuns?: number;
  /**
   * More environment of every job, read at each job's start: a caller may change it between runs
   * (the fault campaign moves the jobs' clock this way).
   */
  readonly runnerEnv?: Record<string, string>;
  /** `.github/workflows/naruto.yml` (default: templates/naruto.yml as it is). */
  readonly workflow?: string;
  /** Repository secrets the workflow sees. */
  readonly secrets?: Readonly<Record<string, string>>;
  /** More folders every job may write. */
  readonly sharedDirs?: readonly string[];
  /** Matrix legs at once (default the simulator's 2). */
  readonly legConcurrency?: number;
  /** The fake plays a GitHub Enterprise Server of this version (fake-github's `ghesVersion`). */
  readonly ghesVersion?: string;
  /** Runs before the mission: branch protection, more users (the fake is ready, the repository made). */
  readonly prepare?: (fake: FakeGitHub) => void;
  /** The repository's runners and this machine's share (the simulator's `runnerQuota`, `runnerLabels`, `legConcurrency`). */
  readonly runners?: Pick<SimulatorOptions, "runnerQuota" | "runnerLabels" | "legConcurrency">;
}

export interface PostedComment {
  readonly commentId: number;
  readonly delivery: DeliveryResult;
}

export interface AppWorld {
  readonly fake: FakeGitHub;
  /** The simulator (its dispatch runs send the run webhooks to the App). */
  readonly sim: ActionsSimulator;
  /** The App process every webhook goes to. */
  readonly app: AppProcess;
  /** `<slug>[bot]`: the login of the App's comments. */
  readonly botLogin: string;
  /** The run webhooks sent so far (and whether the App answered them). */
  readonly runHooks: RunWebhooks;
  /** The GitHub port as the maintainer (reads refs, comments, pull requests). */
  readonly github: GitHubPort;
  /** Every run so far, in the order they ran. */
  readonly runs: readonly RunResult[];
  /** A token that comments as `login`: a user's own, or for a login ending in `[bot]` an app bot's. */
  tokenOf(login: string): string;
  /** A REST call as `as` (a user or a bot) under /api/v3; throws unless GitHub answers 2xx. */
  rest<T = unknown>(as: string, method: string, path: string, body?: unknown): Promise<T>;
  /**
   * A pull request from a new branch of `acme/demo` holding `files` on top of the default
   * branch, opened by `as`; returns its number (shared with issues: comment on it by number).
   * With `fork`, the branch is in `as`'s fork instead (fake-github/forks.ts): the commit is
   * written with the maintainer's token, as the fake has no fork to push to, and is reachable
   * here only through `refs/pull/<n>/head`.
   */
  openPullRequest(input: { as: string; branch: string; files: Readonly<Record<string, string>>; title?: string; fork?: boolean }): Promise<number>;
  /** Posts a comment (as a user or a bot) without delivering it; returns its id. */
  postComment(input: { as: string; body: string; issue?: number }): Promise<number>;
  /** Delivers `issue_comment` for an existing comment, signed, to the App (or to `url`). */
  deliverComment(commentId: number, input?: { url?: string; action?: "created" | "edited" }): Promise<DeliveryResult>;
  /**
   * The same delivery again (same X-GitHub-Delivery, same bytes): GitHub's redelivery to the
   * App, or, with `url`, what another replica behind the same webhook URL would receive.
   */
  redeliver(deliveryId: string, input?: { url?: string }): Promise<number | null>;
  /** Posts and delivers; throws unless the App answered the delivery with 2xx. */
  comment(input: { as: string; body: string; issue?: number }): Promise<PostedComment>;
  /** Another App process with the same settings (a second replica); closed with the world. */
  startReplica(): Promise<AppProcess>;
  /** Resolves once every App process has handled the deliveries it answered. */
  idle(): Promise<void>;
  /** Runs the dispatches recorded so far and not run yet (one round). */
  runPending(): Promise<RunResult[]>;
  /** Runs every dispatch until none is new (default at most 40 runs). */
  settle(maxRuns?: number): Promise<RunResult[]>;
  /** Comments on an issue or pull request, oldest first. */
  comments(issue?: number): CommentState[];
  mission(id: string): Promise<Mission | null>;
  missionIds(): Promise<string[]>;
  /** `git` in the fake's bare repository. */
  bareGit(...args: string[]): Promise<string>;
  /** The tail of every App process's output, for a failure message. */
  appLogs(): string;
  /** A folder every job can read and write (agents' reports). */
  readonly reports: string;
  close(): Promise<void>;
}

export async function startAppWorld(input: AppWorldInput): Promise<AppWorld> {
  await requireAction();
  const fake = await startFakeGitHub({ webhook: { secret: WEBHOOK_SECRET }, ...(input.ghesVersion === undefined ? {} : { ghesVersion: input.ghesVersion }) });
  const cleanup: (() => Promise<void>)[] = [() => fake.close()];
  const apps: AppProcess[] = [];
  try {
    const users = input.users ?? { [MAINTAINER]: "write" };
    const tokens = new Map<string, string>();
    for (const [login, permission] of Object.entries(users)) tokens.set(login.toLowerCase(), fake.addUser(login, { permission }).token);
    const firstUser = Object.keys(users)[0] ?? MAINTAINER;
    const reports = await mkdtemp(join(tmpdir(), "e2e-reports-"));
    await chmod(reports, 0o777);
    cleanup.push(() => rm(reports, { recursive: true, force: true }));
    const repo = await fake.createRepo({
      owner: "acme",
      name: "demo",
      private: input.public !== true,
      files: {
        "README.md": "# demo\n",
        ".github/workflows/naruto.yml": input.workflow ?? (await readFile(join(REPO_ROOT, "templates/naruto.yml"), "utf8")),
        ".github/naruto.yml": typeof input.config === "string" ? input.config : input.config(reports),
        ...input.files,
      },
      issues: input.issues ?? [{ title: "Build the tiny library", body: "Please.", user: firstUser }],
    });
    input.prepare?.(fake);

    const env: Record<string, string> = {
      APP_ID: String(fake.app.id),
      PRIVATE_KEY: fake.app.privateKey,
      WEBHOOK_SECRET,
      // Probot builds `${GHE_PROTOCOL}://${GHE_HOST}/api/v3`; the fake serves REST there too.
      GHE_HOST: new URL(fake.url).host,
      GHE_PROTOCOL: "http",
      LOG_LEVEL: process.env["E2E_APP_LOG_LEVEL"] ?? "info",
      // Every run event renders at once: what a scenario reads back does not depend on timers.
      NARUTO_TRACKING_INTERVAL_MS: "0",
      // Between writes GitHub wants a second; the fake does not.
      NARUTO_GITHUB_WRITE_INTERVAL_MS: "0",
      ...(input.appSlug === null ? {} : { APP_SLUG: input.appSlug ?? fake.app.slug }),
      ...input.appEnv,
    };
    const app = await startAppProcess({ env });
    apps.push(app);
    cleanup.push(async () => {
      for (const a of apps) await a.close();
    });

    if (input.pushWebhooks === true) fake.sendPushWebhooks({ url: () => app.url });
    const botLogin = `${fake.app.slug}[bot]`;
    const vars = { NARUTO_APP: "true", NARUTO_BOT_LOGIN: botLogin, ...input.vars };
    const runHooks = runWebhooks({ fake, repo: REPO, url: () => app.url, vars });
    const sim = await createActionsSimulator({
      fake: input.runWebhooks === false ? fake : runHooks.fake,
      repo: REPO,
      actionDir: REPO_ROOT,
      sharedDirs: [reports, ...(input.sharedDirs ?? [])],
      runnerEnv: Object.assign(input.runnerEnv ?? {}, { NARUTO_GITHUB_WRITE_INTERVAL_MS: "0" }),
      vars,
      ...(input.secrets !== undefined ? { secrets: input.secrets } : {}),
      ...(input.legConcurrency !== undefined ? { legConcurrency: input.legConcurrency } : {}),
      ...(input.beforeJob !== undefined ? { beforeJob: input.beforeJob } : {}),
      ...input.runners,
      ...(input.stepHook !== undefined ? { stepHook: input.stepHook } : {}),
    });
    cleanup.push(() => sim.close());
    const runner = input.runWebhooks === false ? sim : runHooks.wrap(sim);

    const maintainerToken = tokens.get(firstUser.toLowerCase()) ?? "";
    const github = createGitHub({ token: maintainerToken, repo: { owner: "acme", repo: "demo" }, baseUrl: fake.apiUrl, userAgent: "naruto-e2e" });
    const store = createGitHubMissionStore({ github });
    const git = testGit();
    const runs: RunResult[] = [];

    const tokenOf = (login: string): string => {
      const known = tokens.get(login.toLowerCase());
      if (known !== undefined) return known;
      if (!login.endsWith("[bot]")) throw new Error(`no user ${login}: list it in the world's users`);
      // The App's own bot, or another app's (type Bot): an installation token that writes as it.
      const token = fake.issueAppToken({ owner: "acme", ...(login === botLogin ? {} : { bot: login }) }).token;
      tokens.set(login.toLowerCase(), token);
      return token;
    };
    const rest = async <T = unknown>(as: string, method: string, path: string, body?: unknown): Promise<T> => {
      const response = await fetch(`${fake.apiUrl}${path}`, {
        method,
        headers: { authorization: `token ${tokenOf(as)}`, "content-type": "application/json", accept: "application/vnd.github+json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      if (response.status >= 300) throw new Error(`${method} ${path} as ${as} answered ${response.status}: ${text.slice(0, 300)}`);
      return (text === "" ? null : JSON.parse(text)) as T;
    };
    const openPullRequest = async (pull: { as: string; branch: string; files: Readonly<Record<string, string>>; title?: string; fork?: boolean }) => {
      const base = fake.repo(REPO).defaultBranch;
      const head = await gitText(git, { args: ["rev-parse", `refs/heads/${base}`], cwd: repo.dir });
      const baseTree = await gitText(git, { args: ["rev-parse", `${head}^{tree}`], cwd: repo.dir });
      const writer = pull.fork === true ? MAINTAINER : pull.as;
      const tree = await rest<{ sha: string }>(writer, "POST", `/repos/${REPO}/git/trees`, {
        base_tree: baseTree,
        tree: Object.entries(pull.files).map(([path, content]) => ({ path, mode: "100644", type: "blob", content })),
      });
      const commit = await rest<{ sha: string }>(writer, "POST", `/repos/${REPO}/git/commits`, {
        message: pull.title ?? `Change ${pull.branch}`,
        tree: tree.sha,
        parents: [head],
      });
      if (pull.fork === true) {
        return fake.openForkPullRequest({ repo: REPO, forkOwner: pull.as, headRef: pull.branch, head: commit.sha, base, title: pull.title ?? pull.branch });
      }
      await rest(pull.as, "POST", `/repos/${REPO}/git/refs`, { ref: `refs/heads/${pull.branch}`, sha: commit.sha });
      const opened = await rest<{ number: number }>(pull.as, "POST", `/repos/${REPO}/pulls`, { head: pull.branch, base, title: pull.title ?? pull.branch });
      return opened.number;
    };
    const postComment = async ({ as, body, issue = 1 }: { as: string; body: string; issue?: number }) => {
      const response = await fetch(`${fake.apiUrl}/repos/${REPO}/issues/${issue}/comments`, {
        method: "POST",
        headers: { authorization: `token ${tokenOf(as)}`, "content-type": "application/json", accept: "application/vnd.github+json" },
        body: JSON.stringify({ body }),
      });
      const created = (await response.json()) as { id?: unknown; message?: unknown };
      if (response.status !== 201 || typeof created.id !== "number")
        throw new Error(`the fake refused ${as}'s comment on #${issue}: ${response.status} ${String(created.message)}`);
      return created.id;
    };
    // The App answers a delivery at once and handles it after: what a scenario checks next is
    // what the App did, so every delivery of the world waits until every App process is idle.
    const idle = async () => {
      // A push webhook's handler saves state (a push, whose webhook it then gets): twice round.
      for (let round = 0; round < 2; round++) {
        await fake.pushWebhooksIdle();
        for (const a of apps) await a.idle();
      }
    };
    const deliverComment = async (commentId: number, options: { url?: string; action?: "created" | "edited" } = {}) => {
      const delivered = await fake.deliver({
        event: "issue_comment",
        payload: fake.payloads.issueComment({ repo: REPO, commentId, ...(options.action ? { action: options.action } : {}) }),
        url: options.url ?? app.url,
      });
      await idle();
      return delivered;
    };
    const parallel = Math.max(1, input.parallelRuns ?? 1);
    const runPending = async () => {
      const done: RunResult[] = [];
      // The repository's own workflows, for the pushes and pull requests that start them (CI).
      const events = async () => {
        for (const run of await runner.runEvents()) {
          done.push(run);
          runs.push(run);
        }
        await idle();
      };
      if (parallel === 1) {
        for (const record of runner.takeDispatches()) {
          const run = await runner.runDispatch(record);
          await idle();
          done.push(run);
          runs.push(run);
        }
        await events();
        return done;
      }
      // Side by side: what the App dispatches while runs go (an integrate run when a leg ends)
      // starts as soon as there is room, as GitHub would start it.
      const waiting = runner.takeDispatches();
      const running = new Set<Promise<void>>();
      while (waiting.length > 0 || running.size > 0) {
        while (waiting.length > 0 && running.size < parallel) {
          const record = waiting.shift();
          if (record === undefined) break;
          const task: Promise<void> = runner.runDispatch(record).then((run) => {
            done.push(run);
            runs.push(run);
            running.delete(task);
          });
          running.add(task);
        }
        if (running.size > 0) await Promise.race([...running, new Promise((r) => setTimeout(r, 200))]);
        if (running.size === 0) await idle();
        waiting.push(...runner.takeDispatches());
      }
      await events();
      return done;
    };

    return {
      fake,
      sim: runner,
      app,
      botLogin,
      runHooks,
      github,
      runs,
      tokenOf,
      rest,
      openPullRequest,
      postComment,
      deliverComment,
      redeliver: async (deliveryId, options = {}) => {
        if (options.url === undefined) {
          const status = (await fake.redeliver(deliveryId)).status;
          await idle();
          return status;
        }
        const delivery = fake.deliveries.find((d) => d.id === deliveryId);
        if (delivery === undefined) throw new Error(`no delivery ${deliveryId}`);
        const response = await fetch(options.url, { method: "POST", headers: delivery.headers, body: delivery.body, signal: AbortSignal.timeout(10_000) });
        await response.arrayBuffer();
        await idle();
        return response.status;
      },
      idle,
      comment: async (posted) => {
        const commentId = await postComment(posted);
        const delivery = await deliverComment(commentId);
        if (delivery.status === null || delivery.status >= 300) {
          throw new Error(`the App answered the comment's delivery with ${delivery.status ?? delivery.error ?? "nothing"}: ${delivery.body.slice(0, 300)}`);
        }
        return { commentId, delivery };
      },
      startReplica: async () => {
        const replica = await startAppProcess({ env });
        apps.push(replica);
        return replica;
      },
      runPending,
      settle: async (maxRuns = 40) => {
        const done: RunResult[] = [];
        for (;;) {
          const round = await runPending();
          if (round.length === 0) return done;
          done.push(...round);
          if (done.length > maxRuns) throw new RunawayError(done, maxRuns);
        }
      },
      comments: (issue) => [...fake.repo(REPO).comments.values()].filter((c) => issue === undefined || c.issueNumber === issue),
      mission: async (id) => (await store.load(id))?.mission ?? null,
      missionIds: () => store.list(),
      bareGit: (...args) => gitText(git, { args, cwd: repo.dir }),
      reports,
      appLogs: () => apps.map((a, i) => `--- App process ${i + 1} (port ${a.port}):\n${a.logs().slice(-6_000)}`).join("\n"),
      close: async () => {
        for (const step of cleanup.reverse()) await step().catch(() => undefined);
      },
    };
  } catch (error) {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
    throw error;
  }
}

/**
 * Runs `body` in a fresh App world and closes it; a failure carries the App processes' output
 * after its first line (scripts/e2e.ts prints that part to stderr).
 */
export async function withAppWorld(input: AppWorldInput, body: (world: AppWorld) => Promise<void>): Promise<void> {
  const world = await startAppWorld(input);
  try {
    await body(world);
  } catch (error) {
    if (error instanceof Error) error.message = `${error.message}\n\n${world.appLogs()}`;
    throw error;
  } finally {
    await world.close();
  }
}
