/**
 * A fake GitHub on loopback for tests: real HTTP, real git repositories over smart HTTP, the
 * REST subset naruto uses (validated against GitHub's OpenAPI description), app installation
 * tokens, webhooks, fault injection, and a record of every request.
 *
 * @example
 *   const github = await startFakeGitHub();
 *   await github.createRepo({ owner: "acme", name: "demo", files: { "README.md": "# demo\n" } });
 *   const { token } = github.addUser("octo-maintainer", { permission: "write" });
 *   // Octokit: new Octokit({ auth: token, baseUrl: github.apiUrl })
 *   // git:     git clone github.gitUrl("acme/demo", token)
 *   github.assertNoViolations();
 *   await github.close();
 */
import { rm } from "node:fs/promises";
import { mkdtemp } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { issueInstallationToken, signAppJwt } from "./app-auth.ts";
import type { Fault, FaultSource } from "./faults.ts";
import { openForkPull, type ForkPullInput } from "./forks.ts";
import { createPayloadBuilders, type PayloadBuilders } from "./payloads.ts";
import { renameUser } from "./rename.ts";
import { addReviewComment, addReviewThread, setReviewThread, type AddReviewThreadInput, type ReviewThreadHandle } from "./review-threads.ts";
import { createHandler, type RecordedRequest, type Violation } from "./server.ts";
import {
  findRepo,
  GITHUB_ACTIONS_APP_ID,
  type Account,
  type AppPermissions,
  type CheckRunState,
  type DispatchRecord,
  type JobState,
  type RepoState,
  type Role,
  type RunConclusion,
  type RunStatus,
} from "./state.ts";
import { artifactsOfRun, type ArtifactState } from "./artifacts.ts";
import { randomBytes, randomUUID } from "node:crypto";
import { APP_EVENTS } from "./shapes.ts";
import { createWebhookSender, type DeliverInput, type Delivery, type DeliveryResult } from "./webhooks.ts";
import { setActionsSettings, type ActionsSettingsInput } from "./actions-settings.ts";
import { addUser, createRepository, createWorld, type AppOptions, type CreateRepoInput } from "./world.ts";

export type { Fault, FaultSource } from "./faults.ts";
export type { RecordedRequest, Violation } from "./server.ts";
export type { DispatchRecord, RepoEventState, RepoState, Role } from "./state.ts";
export type { ArtifactState } from "./artifacts.ts";
export type { Delivery, DeliveryResult } from "./webhooks.ts";
export { signWebhook } from "./webhooks.ts";
export { assertWebhookPayload, MalformedPayloadError, validateWebhook } from "./webhook-schemas.ts";
export type { PayloadBuilders } from "./payloads.ts";
export type { CreateRepoInput } from "./world.ts";
export type { AddReviewThreadInput, ReviewThreadHandle } from "./review-threads.ts";
export type { ForkPullInput } from "./forks.ts";

export interface FakeGitHubOptions {
  /** 0 (default) picks a free port. */
  readonly port?: number;
  readonly app?: AppOptions;
  /** Where `deliver()` posts by default. */
  readonly webhook?: { readonly url?: string; readonly secret?: string };
  /** Installation token lifetime (GitHub: 1 h). */
  readonly installationTokenLifetimeMs?: number;
  /** Installation token length (GitHub since 2026: about 520). */
  readonly installationTokenLength?: number;
  /**
   * Plays a GitHub Enterprise Server of this version (`"3.20"`) instead of github.com: what
   * naruto meets there that differs (a dispatch with `return_run_details` answered 400 before
   * 3.21). The API is served under `/api/v3` either way.
   */
  readonly ghesVersion?: string;
}

export interface FakeGitHub {
  /** `http://127.0.0.1:N`: the web and git base, and the REST API at `/`. */
  readonly url: string;
  /** `http://127.0.0.1:N/api/v3`: the REST API as GitHub Enterprise Server serves it. */
  readonly apiUrl: string;
  readonly app: { readonly id: number; readonly slug: string; readonly privateKey: string };
  createRepo(input: CreateRepoInput): Promise<RepoState>;
  /** Adds a user with a personal token; the role applies to every repository unless `repos` narrows it. */
  addUser(login: string, input?: { permission?: Role; repos?: readonly string[] }): { login: string; token: string };
  setPermission(login: string, repo: string, role: Role): void;
  /**
   * The user renames the account (rename.ts): same id, roles and tokens under the new login; the
   * old login is free for another account (`addUser` it again: a new id).
   */
  renameUser(from: string, to: string): void;
  tokenFor(login: string): string;
  /**
   * An installation token, as the access-token endpoint or an Actions job would get one;
   * `workflowToken` makes it a job's `GITHUB_TOKEN`, whose pushes and pull requests start no
   * workflow run (events.ts).
   */
  issueAppToken(input?: {
    owner?: string;
    permissions?: AppPermissions;
    repositories?: readonly string[];
    lifetimeMs?: number;
    bot?: string;
    workflowToken?: boolean;
  }): {
    token: string;
    expiresAt: string;
    installationId: number;
  };
  /** Revokes a token (as GitHub does with a job's `GITHUB_TOKEN` when the job ends); false when unknown. */
  revokeToken(token: string): boolean;
  installationId(owner: string): number;
  /** A valid app JWT for the app endpoints. */
  appJwt(): string;
  /** `http://x-access-token:TOKEN@127.0.0.1:N/owner/repo.git`. */
  gitUrl(repo: string, token?: string): string;
  /** Moves the fake's clock (token expiry, JWT checks) forward without waiting. */
  advanceClock(ms: number): void;
  /** The fake's clock, in milliseconds since the epoch. */
  now(): number;
  repo(fullName: string): RepoState;
  readonly requests: RecordedRequest[];
  readonly violations: Violation[];
  /** Throws, listing them, when any request broke GitHub's description (or crashed the fake). */
  assertNoViolations(): void;
  readonly faults: Fault[];
  /** Decides a fault for every request and delivery no queued fault answers (null: none). */
  setFaultSource(source: FaultSource | null): void;
  /**
   * GitHub's 10-second limit on a GraphQL query, as a size: an answer longer than `bytes` (its
   * JSON) is replaced by the 502 GitHub sends for a query it could not finish. Null: no limit.
   */
  setGraphqlAnswerLimit(bytes: number | null): void;
  readonly dispatches: DispatchRecord[];
  readonly deliveries: readonly Delivery[];
  deliver(input: DeliverInput): Promise<DeliveryResult>;
  redeliver(deliveryId: string): Promise<DeliveryResult>;
  /**
   * The App's `push` webhooks: from now on every branch created, moved or deleted in a repository
   * the App is installed on is delivered to `url()` (asked at each delivery), one at a time in the
   * order the pushes happened, after the push was answered, as GitHub does. Null: no more.
   */
  sendPushWebhooks(input: { url: () => string } | null): void;
  /** Resolves once every `push` webhook so far was answered (or failed). */
  pushWebhooksIdle(): Promise<void>;
  readonly payloads: PayloadBuilders;
  /** Moves a run on; `title` sets its `display_title` (the `run-name` the runner evaluated). */
  setRunStatus(runId: number, input: { status: RunStatus; conclusion?: RunConclusion; title?: string }): void;
  /**
   * Creates or updates (by name) a job of a run, as the runner reports it: created `queued` (its
   * `started_at` is then its creation), `in_progress` once a runner (`runner`) takes it, then
   * `completed`; `labels` are its `runs-on`. Returns the job id.
   */
  setJob(runId: number, input: { name: string; status: RunStatus; conclusion?: RunConclusion; labels?: readonly string[]; runner?: string }): number;
  /**
   * Starts (`in_progress`) or ends (`completed` with a conclusion) step `number` of a job, as a
   * runner reports it and the jobs API shows it (the run's ETag changes with it).
   */
  setJobStep(jobId: number, input: { number: number; name: string; status: "in_progress" | "completed"; conclusion?: string }): void;
  /** Branch protection on `branch`: the check runs (by name) a pull request into it needs green on its head. */
  setRequiredChecks(repo: string, branch: string, checks: readonly string[]): void;
  /**
   * A check run of the GitHub Actions app (a workflow job of a run the simulator runs for a push or
   * pull request event): created with `name` on `headSha`, or moved on when `id` is given.
   */
  setActionsCheckRun(
    repo: string,
    input: { id?: number; name: string; headSha: string; status: "queued" | "in_progress" | "completed"; conclusion?: string; detailsUrl?: string },
  ): number;
  /**
   * A job's `ACTIONS_RUNTIME_TOKEN`: it uploads artifacts to `runId` (and reads that run's) through
   * the results service until revoked, whatever process presents it.
   */
  issueRuntimeToken(input: { repo: string; runId: number; jobId: number | null }): string;
  /** Ends a runtime token, as GitHub does when its job completes. */
  revokeRuntimeToken(token: string): void;
  /** The artifacts of a run of `repo`, oldest first (tests read what was uploaded, and by which job). */
  artifacts(repo: string, runId: number): readonly ArtifactState[];
  /** A reviewer's thread on a line of a pull request's file (read through GraphQL `reviewThreads`). */
  addReviewThread(input: AddReviewThreadInput): ReviewThreadHandle;
  /** A reply in a review thread (`thread`: the id `addReviewThread` returned). */
  addReviewComment(input: { repo: string; thread: string; user: string; body: string }): void;
  /** Resolves or unresolves a thread (`by`: who resolved it), or marks it outdated as a later push would. */
  setReviewThread(input: { repo: string; thread: string; resolved?: boolean; outdated?: boolean; by?: string }): void;
  /** A pull request from the fork `<forkOwner>/<name>` (see forks.ts); returns its number. */
  openForkPullRequest(input: ForkPullInput): Promise<number>;
  /** A repository's Actions secrets (names), variables and pull request setting, and its owner's shared ones (actions-settings.ts). */
  setActionsSettings(input: ActionsSettingsInput): void;
  /** The App's installation on `owner` now has these permissions (an App whose new permissions were not accepted), or is gone (null). */
  setInstallation(owner: string, permissions: AppPermissions | null): void;
  close(): Promise<void>;
}

export async function startFakeGitHub(options: FakeGitHubOptions = {}): Promise<FakeGitHub> {
  const root = await mkdtemp(join(tmpdir(), "fake-github-"));
  const world = createWorld({
    root,
    ...(options.app !== undefined ? { app: options.app } : {}),
    ...(options.installationTokenLifetimeMs !== undefined ? { tokenLifetimeMs: options.installationTokenLifetimeMs } : {}),
    ...(options.installationTokenLength !== undefined ? { tokenLength: options.installationTokenLength } : {}),
    ...(options.ghesVersion !== undefined ? { ghesVersion: options.ghesVersion } : {}),
  });
  const core = {
    world,
    faults: [] as Fault[],
    source: { current: null as FaultSource | null },
    requests: [] as RecordedRequest[],
    violations: [] as Violation[],
  };
  const server = createServer(createHandler(core));
  // Keep-alive sockets would hold close() open until they time out.
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const webhooks = createWebhookSender({ defaults: options.webhook ?? {}, faults: core.faults, source: core.source, appId: world.app.id });
  const userTokens = new Map<string, string>();
  const payloads = createPayloadBuilders(world, () => ({ api: url, web: url }));
  let pushChain: Promise<void> = Promise.resolve();

  const repoOf = (fullName: string): RepoState => {
    const repo = world.repos.get(fullName.toLowerCase());
    if (repo === undefined) throw new Error(`no repository ${fullName}`);
    return repo;
  };
  const installationId = (owner: string): number => {
    const found = [...world.installations.values()].find((i) => i.account.login.toLowerCase() === owner.toLowerCase());
    if (found === undefined) throw new Error(`the app is not installed on ${owner} (create a repository there first)`);
    return found.id;
  };
  const runOf = (runId: number) => {
    for (const repo of world.repos.values()) {
      const run = repo.runs.get(runId);
      if (run !== undefined) return run;
    }
    throw new Error(`no workflow run ${runId}`);
  };

  return {
    url,
    apiUrl: `${url}/api/v3`,
    app: { id: world.app.id, slug: world.app.slug, privateKey: world.app.privateKey },
    createRepo: (input) => createRepository(world, input),
    addUser: (login, input = {}) => {
      const { token } = addUser(world, login, input);
      userTokens.set(login.toLowerCase(), token);
      return { login, token };
    },
    setPermission: (login, repo, role) => {
      repoOf(repo).collaborators.set(login.toLowerCase(), role);
    },
    renameUser: (from, to) => {
      renameUser(world, { from, to });
      const token = userTokens.get(from.toLowerCase());
      userTokens.delete(from.toLowerCase());
      if (token !== undefined) userTokens.set(to.toLowerCase(), token);
    },
    tokenFor: (login) => {
      const token = userTokens.get(login.toLowerCase());
      if (token === undefined) throw new Error(`no user ${login}: addUser first`);
      return token;
    },
    issueAppToken: (input = {}) => {
      const id = installationId(input.owner ?? [...world.installations.values()][0]?.account.login ?? "");
      let bot: Account | undefined;
      if (input.bot !== undefined) {
        bot = { login: input.bot, id: world.nextId(), type: "Bot" };
        world.accounts.set(input.bot.toLowerCase(), bot);
      }
      const issued = issueInstallationToken(world, {
        installationId: id,
        ...(input.permissions !== undefined ? { permissions: input.permissions } : {}),
        ...(input.repositories !== undefined ? { repositories: input.repositories } : {}),
        ...(input.lifetimeMs !== undefined ? { lifetimeMs: input.lifetimeMs } : {}),
        ...(bot !== undefined ? { bot } : {}),
        ...(input.workflowToken === true ? { workflowToken: true } : {}),
      });
      return { token: issued.token, expiresAt: new Date(issued.expiresAt).toISOString(), installationId: id };
    },
    revokeToken: (token) => world.tokens.delete(token),
    installationId,
    appJwt: () => signAppJwt({ appId: world.app.id, privateKey: world.app.privateKey, nowMs: world.now() }),
    gitUrl: (repo, token) => (token === undefined ? `${url}/${repo}.git` : `http://x-access-token:${token}@${url.slice("http://".length)}/${repo}.git`),
    advanceClock: (ms) => world.advanceClock(ms),
    now: () => world.now(),
    repo: repoOf,
    requests: core.requests,
    violations: core.violations,
    assertNoViolations: () => {
      if (core.violations.length === 0) return;
      const lines = core.violations.map((v) => `${v.method} ${v.path}${v.operation === null ? "" : ` (${v.operation})`}:\n  ${v.problems.join("\n  ")}`);
      throw new Error(`fake GitHub: ${core.violations.length} request(s) broke GitHub's description:\n${lines.join("\n")}`);
    },
    faults: core.faults,
    setFaultSource: (source) => {
      core.source.current = source;
    },
    setGraphqlAnswerLimit: (bytes) => {
      world.graphqlAnswerLimit = bytes;
    },
    dispatches: world.dispatches,
    deliveries: webhooks.deliveries,
    sendPushWebhooks: (input) => {
      world.onBranchMove =
        input === null
          ? null
          : (repo, move) => {
              const installed = [...world.installations.values()].some((i) => i.account.id === repo.owner.id);
              if (!installed || !APP_EVENTS.includes("push")) return;
              pushChain = pushChain.then(async () => {
                const payload = await payloads.push({
                  repo: repo.fullName,
                  ref: move.ref,
                  before: move.before,
                  after: move.after,
                  sender: move.actor.login,
                  forced: move.forced,
                });
                await webhooks.deliver({ event: "push", payload, url: input.url() }).catch(() => undefined);
              });
            };
    },
    pushWebhooksIdle: async () => {
      // A delivery's handler may push again (naruto's own state saves): wait until none is left.
      for (let last: Promise<void> | null = null; last !== pushChain; ) {
        last = pushChain;
        await last;
      }
    },
    deliver: (input) => webhooks.deliver(input),
    redeliver: (id) => webhooks.redeliver(id),
    payloads,
    setRunStatus: (runId, input) => {
      const run = runOf(runId);
      run.status = input.status;
      run.conclusion = input.conclusion ?? null;
      if (input.title !== undefined) run.displayTitle = input.title;
      run.updatedAt = world.now();
    },
    setJob: (runId, input) => {
      const run = runOf(runId);
      const now = world.now();
      let job: JobState | undefined = run.jobs.find((j) => j.name === input.name);
      if (job === undefined) {
        job = {
          id: world.nextId(),
          runId,
          name: input.name,
          status: "queued",
          conclusion: null,
          createdAt: now,
          startedAt: null,
          completedAt: null,
          runAttempt: run.runAttempt,
          labels: ["ubuntu-latest"],
          runnerName: null,
          steps: [],
        };
        run.jobs.push(job);
      }
      job.status = input.status;
      job.conclusion = input.conclusion ?? null;
      if (input.labels !== undefined) job.labels = [...input.labels];
      if (input.runner !== undefined) job.runnerName = input.runner;
      // A job that ends without a runner (skipped, cancelled while queued) never started.
      if (input.status === "in_progress" && job.startedAt === null) job.startedAt = now;
      job.completedAt = input.status === "completed" ? now : null;
      run.updatedAt = now;
      return job.id;
    },
    setJobStep: (jobId, input) => {
      const job = [...world.repos.values()]
        .flatMap((r) => [...r.runs.values()])
        .flatMap((r) => r.jobs)
        .find((j) => j.id === jobId);
      if (job === undefined) throw new Error(`no job ${jobId}`);
      const run = runOf(job.runId);
      const now = world.now();
      let step = job.steps.find((s) => s.number === input.number);
      if (step === undefined) {
        step = { number: input.number, name: input.name, status: "queued", conclusion: null, startedAt: null, completedAt: null };
        job.steps.push(step);
        job.steps.sort((a, b) => a.number - b.number);
      }
      step.status = input.status;
      if (step.startedAt === null) step.startedAt = now;
      if (input.status === "completed") {
        step.conclusion = input.conclusion ?? "success";
        step.completedAt = now;
      }
      run.updatedAt = now;
    },
    setRequiredChecks: (name, branch, checks) => {
      repoOf(name).requiredChecks.set(branch, [...checks]);
    },
    setActionsCheckRun: (name, input) => {
      const repo = repoOf(name);
      const now = world.now();
      const existing = input.id === undefined ? undefined : repo.checkRuns.get(input.id);
      const check: CheckRunState = existing ?? {
        id: world.nextId(),
        name: input.name,
        headSha: input.headSha,
        status: "queued",
        conclusion: null,
        externalId: null,
        detailsUrl: input.detailsUrl ?? null,
        startedAt: null,
        completedAt: null,
        output: { title: null, summary: null, text: null, annotationsCount: 0 },
        appId: GITHUB_ACTIONS_APP_ID,
      };
      check.status = input.status;
      check.conclusion = input.conclusion ?? null;
      if (input.status !== "queued" && check.startedAt === null) check.startedAt = now;
      check.completedAt = input.status === "completed" ? now : null;
      repo.checkRuns.set(check.id, check);
      return check.id;
    },
    issueRuntimeToken: (input) => {
      const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
      // Shaped like the real one (a JWT whose scope names the run and job): what a token hunter looks for.
      const token = `${part({ typ: "JWT", alg: "RS256", x5t: "fake-github" })}.${part({ scp: `Actions.Results:${input.runId}:${input.jobId ?? 0}`, nonce: randomUUID() })}.${randomBytes(32).toString("base64url")}`;
      world.runtimeTokens.set(token, { repo: repoOf(input.repo).fullName, runId: input.runId, jobId: input.jobId });
      return token;
    },
    revokeRuntimeToken: (token) => void world.runtimeTokens.delete(token),
    artifacts: (repo, runId) => artifactsOfRun(repoOf(repo), runId),
    addReviewThread: (input) => addReviewThread(world, input),
    addReviewComment: (input) => addReviewComment(world, input),
    setReviewThread: (input) => setReviewThread(world, input),
    openForkPullRequest: (input) => openForkPull(world, input),
    setActionsSettings: (input) => {
      const [owner = "", name = ""] = input.repo.split("/");
      const repo = findRepo(world, owner, name);
      if (repo === undefined) throw new Error(`no repository ${input.repo}`);
      setActionsSettings(world, repo, input);
    },
    setInstallation: (owner, permissions) => {
      const installation = [...world.installations.values()].find((i) => i.account.login.toLowerCase() === owner.toLowerCase());
      if (installation === undefined) throw new Error(`the App is not installed on ${owner}`);
      if (permissions === null) world.installations.delete(installation.id);
      else installation.permissions = permissions;
    },
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      world.gits.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}
