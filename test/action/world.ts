/**
 * The Action's modes against the fake GitHub: a repository with the workflow template and a
 * config whose agent is the demo agent, users, and jobs as the runner makes them — a token with
 * the job's permissions (an installation token acting as `github-actions[bot]`), a checkout over
 * smart HTTP without persisted credentials, a temporary folder, and "uploads" that copy the
 * artifact folder where the queue and publish jobs' download would put it.
 */
import { TEST_AGENT_READ } from "../support/agents/index.ts";
import { chooseSandbox } from "../../src/sandbox/choose.ts";
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { demoAgentCommand } from "../../src/agent/demo-agent.ts";
import type { AgentStepDeps, DispatchInput, ModeDeps } from "../../src/action/deps.ts";
import { QUEUE_ARTIFACT } from "../../src/action/artifacts.ts";
import { commandMode } from "../../src/action/modes/command.ts";
import { preparePlan } from "../../src/action/modes/plan.ts";
import { publishMode } from "../../src/action/modes/publish.ts";
import { prepareWork } from "../../src/action/modes/work.ts";
import { prepareQueue } from "../../src/action/modes/queue.ts";
import { commentEventOf } from "../../src/github-driver/event-payload.ts";
import { recordingLog, type RecordedLog } from "../../src/action/log.ts";
import { readPrepared } from "../../src/action/prepared.ts";
import { remoteFor } from "../../src/action/remote.ts";
import { redactedModeDeps } from "../../src/action/redacted-deps.ts";
import { runAgentStep } from "../../src/action/run-mode.ts";
import { gitText } from "../../src/git/run-git.ts";
import type { CommentEvent } from "../../src/github-driver/handle-comment.ts";
import { createGitHub } from "../../src/github/index.ts";
import { createGitHubMissionStore } from "../../src/store/index.ts";
import type { Mission } from "../../src/mission/document.ts";
import { startFakeGitHub, type FakeGitHub } from "../support/fake-github/index.ts";
import { testGit } from "../support/git-repo.ts";

export const REPO = "acme/demo";
export const BOT = "github-actions[bot]";
const TEMPLATE = new URL("../../templates/naruto.yml", import.meta.url);
const FAST = { retry: { retries: 2, baseDelayMs: 5 }, throttle: { writeIntervalMs: 0, notificationIntervalMs: 0 }, sleep: () => Promise.resolve() } as const;

/** The `permissions:` of each job of templates/naruto.yml (GitHub adds `metadata: read` to every job token). */
export const JOBS = {
  command: { metadata: "read", contents: "write", issues: "write", pull_requests: "write", actions: "write" },
  agent: { metadata: "read", contents: "read" },
  queue: { metadata: "read", contents: "read" },
  publish: { metadata: "read", contents: "write", issues: "write", pull_requests: "write", actions: "write", checks: "write" },
} as const;
export type JobKind = keyof typeof JOBS;

export function testConfig(extra = ""): string {
  return `agents:\n  default:\n    command: ${JSON.stringify(demoAgentCommand(process.execPath))}\n    read: ${TEST_AGENT_READ}\nlimits:\n  max_attempts: 2\n  item_timeout: 10m\n${extra}`;
}

export interface Job {
  readonly deps: ModeDeps;
  readonly log: RecordedLog;
  readonly token: string;
  readonly dir: string;
}

export interface World {
  readonly fake: FakeGitHub;
  /**
   * A job: its token, deps and folders; `checkout` clones that ref into its workspace; `env` adds
   * to the step's environment (an agent's key). Its deps write through the redactor, as main.ts's do.
   */
  job(kind: JobKind, options?: { checkout?: string; now?: () => Date; env?: Readonly<Record<string, string>> }): Promise<Job>;
  /** Posts a comment as `user` and returns the `issue_comment` event the runner would get. */
  comment(user: string, body: string, issue?: number): Promise<CommentEvent>;
  /**
   * The agent step after a job's action step (plan, work, review prepared it): what it prepared,
   * run with the job's folders and git but no GitHub port and no token.
   */
  agentStep(job: Job): Promise<void>;
  /** Copies a job's `artifact` output to `<folder>/<name>/`, as upload + download would. */
  upload(job: Job, folder: string, name: string): Promise<void>;
  /**
   * The end of a run: its queue job (action step, then the token-less queue step, whose artifact
   * joins the run's in `artifacts`), then its publish job. `beforePublish` sees the artifacts
   * between the two, as a compromised queue job's upload would change them.
   */
  /**
   * A maintainer's `/naruto` comment with `body` through its command job, then its plan run (the
   * plan job, queue and publish): the mission's id, with its first attempts dispatched.
   */
  plannedMission(body: string): Promise<string>;
  /** Attempt `attempt` of `item` in its work job: the folder holding its artifact. */
  workRun(mission: string, item: string, attempt?: number): Promise<string>;
  integrate(mission: string, dispatch: DispatchInput, artifacts: string, options?: { now?: () => Date; beforePublish?: (artifacts: string, queue: Job) => Promise<void> }): Promise<{ queue: Job; publish: Job }>;
  mission(id: string): Promise<Mission>;
  ref(name: string): Promise<string | null>;
  close(): Promise<void>;
}

export async function startWorld(input: { config?: string; files?: Record<string, string>; issueBody?: string } = {}): Promise<World> {
  const fake = await startFakeGitHub();
  await fake.createRepo({
    owner: "acme",
    name: "demo",
    files: {
      "README.md": "# demo\n",
      ".github/workflows/naruto.yml": await readFile(TEMPLATE, "utf8"),
      ".github/naruto.yml": input.config ?? testConfig(),
      ...input.files,
    },
    issues: [{ title: "Validate input", ...(input.issueBody ? { body: input.issueBody } : {}) }],
  });
  fake.addUser("octo-maintainer", { permission: "write" });
  fake.addUser("octo-outsider", { permission: "read" });
  const temps: string[] = [];
  const temp = async (prefix: string) => {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    temps.push(dir);
    return dir;
  };
  const git = testGit();
  const reader = createGitHub({ token: fake.issueAppToken({ owner: "acme" }).token, repo: { owner: "acme", repo: "demo" }, baseUrl: fake.url, userAgent: "naruto-tests", ...FAST });

  const world: World = {
    fake,
    async job(kind, options = {}) {
      const { token } = fake.issueAppToken({ owner: "acme", permissions: JOBS[kind], bot: BOT });
      const dir = await temp(`naruto-job-${kind}-`);
      const workspace = join(dir, "workspace");
      if (options.checkout !== undefined) {
        // actions/checkout with fetch-depth: 0 and persist-credentials: false.
        await gitText(git, { args: ["clone", "-q", "--no-checkout", fake.gitUrl(REPO, token), workspace], cwd: dir });
        await gitText(git, { args: ["remote", "set-url", "origin", fake.gitUrl(REPO)], cwd: workspace });
        await gitText(git, { args: ["checkout", "-q", "-B", options.checkout, `refs/remotes/origin/${options.checkout}`], cwd: workspace });
      }
      const github = createGitHub({ token, repo: { owner: "acme", repo: "demo" }, baseUrl: fake.url, userAgent: "naruto-tests", ...FAST });
      const log = recordingLog();
      const deps: ModeDeps = redactedModeDeps({
        github,
        store: createGitHubMissionStore({ github }),
        now: options.now ?? (() => new Date()),
        workflow: "naruto.yml",
        ref: "main",
        log,
        botLogin: BOT,
        runUrl: `${fake.url}/${REPO}/actions/runs/1`,
        git,
        env: { PATH: process.env["PATH"], HOME: dir, ...options.env },
        repo: REPO,
        workspace,
        tempDir: join(dir, "temp"),
        configPath: ".github/naruto.yml",
        remote: remoteFor(fake.url, REPO, token),
        chooseSandbox: (mode) => chooseSandbox({ mode, env: process.env }),
        nodePath: process.execPath,
        sudoWorks: async () => false,
      }, { secrets: [token] });
      return { deps, log, token, dir };
    },
    async comment(user, body, issue = 1) {
      const response = await fetch(`${fake.url}/repos/${REPO}/issues/${issue}/comments`, {
        method: "POST",
        headers: { authorization: `token ${fake.tokenFor(user)}`, "content-type": "application/json" },
        body: JSON.stringify({ body }),
      });
      const created = (await response.json()) as { id: number };
      const event = commentEventOf("issue_comment", fake.payloads.issueComment({ repo: REPO, commentId: created.id }));
      if (event === null) throw new Error("the fake's payload is not an issue_comment event naruto reads");
      return event;
    },
    async agentStep(job) {
      const prepared = job.log.outputs["prepared"];
      if (prepared === undefined) throw new Error("the job's action step set no prepared output");
      const { log, git: stepGit, env, workspace, tempDir, now, chooseSandbox: choose, nodePath, sudoWorks } = job.deps;
      const deps: AgentStepDeps = { log, git: stepGit, env, workspace, tempDir, now, chooseSandbox: choose, nodePath, sudoWorks };
      await runAgentStep(deps, await readPrepared(prepared));
    },
    async plannedMission(body) {
      const event = await world.comment("octo-maintainer", body);
      const begun = await commandMode((await world.job("command")).deps, { event, selfLogins: [BOT], pullRequestHead: async () => null });
      if (begun.kind !== "mission") throw new Error(`no mission: ${JSON.stringify(begun)}`);
      const planJob = await world.job("agent", { checkout: `naruto/${begun.mission}` });
      await preparePlan(planJob.deps, { mission: begun.mission });
      await world.agentStep(planJob);
      const artifacts = await newFolder("naruto-artifacts-");
      await world.upload(planJob, artifacts, "naruto-plan");
      await world.integrate(begun.mission, { phase: "plan", items: [] }, artifacts);
      return begun.mission;
    },
    async workRun(mission, item, attempt = 1) {
      const job = await world.job("agent", { checkout: `naruto/${mission}` });
      await prepareWork(job.deps, { mission, items: `${item}#${attempt}` });
      await world.agentStep(job);
      const artifacts = await newFolder("naruto-artifacts-");
      await world.upload(job, artifacts, `naruto-work-${item}-${attempt}`);
      return artifacts;
    },
    async integrate(mission, dispatch, artifacts, options = {}) {
      const now = options.now === undefined ? {} : { now: options.now };
      const queue = await world.job("queue", { checkout: "main", ...now });
      await prepareQueue(queue.deps, { mission, artifacts, dispatch });
      await world.agentStep(queue);
      await world.upload(queue, artifacts, QUEUE_ARTIFACT);
      await options.beforePublish?.(artifacts, queue);
      const publish = await world.job("publish", { checkout: "main", ...now });
      await publishMode(publish.deps, { mission, artifacts, dispatch });
      return { queue, publish };
    },
    async upload(job, folder, name) {
      const from = job.log.outputs["artifact"];
      if (from === undefined) throw new Error("the job set no artifact output");
      await cp(from, join(folder, name), { recursive: true });
    },
    async mission(id) {
      const stored = await createGitHubMissionStore({ github: reader }).load(id);
      if (stored === null) throw new Error(`no mission ${id}`);
      return stored.mission;
    },
    ref: (name) => reader.getRef(name),
    async close() {
      fake.assertNoViolations();
      await fake.close();
      for (const dir of temps) await rm(dir, { recursive: true, force: true });
    },
  };
  return world;
}

export async function newFolder(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}
