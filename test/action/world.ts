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
import { dirname, join } from "node:path";
import { demoAgentCommand } from "../../src/agent/demo-agent.ts";
import type { AgentStepDeps, DispatchInput, ModeDeps } from "../../src/action/deps.ts";
import { QUEUE_ARTIFACT, workArtifactName } from "../../src/action/artifacts.ts";
import { UPLOAD_STEP } from "../../src/action/integrate/legs.ts";
import { runIdOf, workLegName } from "../../src/github-driver/mission-id.ts";
import { zipForUpload } from "../support/actions-sim/artifacts.ts";
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
  queue: { metadata: "read", contents: "read", actions: "read" },
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
  job(kind: JobKind, options?: { checkout?: string; now?: () => Date; env?: Readonly<Record<string, string>>; run?: number | null }): Promise<Job>;
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
  /**
   * Attempt `attempt` of `item` in its leg of the work run the state names for it, as the runner
   * does it: a job of that run in the fake (named as the template names legs), the action's step
   * and the agent step, then the `naruto upload` step sending the artifact folder as a zip with the
   * job's runtime token; the job completes. Returns a fresh folder for the run's own downloads
   * (the work artifact stays on "GitHub", where queue and publish read it by run id).
   */
  workRun(mission: string, item: string, attempt?: number, options?: { beforeUpload?: (artifact: string) => Promise<void> }): Promise<string>;
  /** The run the state names for attempt `attempt` of `item`. */
  runOf(mission: string, item: string, attempt?: number): Promise<number>;
  /** The job a result of that leg names (`WorkResult.job`). */
  legJob(mission: string, item: string, attempt?: number): Promise<{ run_id: number; run_attempt: number; name: string }>;
  /**
   * A leg of the run the state names that uploads `folder` as its artifact from its `naruto upload`
   * step, then completes: what its own job would leave on GitHub, whatever the folder holds.
   */
  uploadLeg(mission: string, item: string, attempt: number, folder: string): Promise<void>;
  integrate(
    mission: string,
    dispatch: DispatchInput,
    artifacts: string,
    options?: { now?: () => Date; beforePublish?: (artifacts: string, queue: Job) => Promise<void> },
  ): Promise<{ queue: Job; publish: Job }>;
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
  const unrecorded = new Map<string, number>();
  const reader = createGitHub({
    token: fake.issueAppToken({ owner: "acme" }).token,
    repo: { owner: "acme", repo: "demo" },
    baseUrl: fake.url,
    userAgent: "naruto-tests",
    ...FAST,
  });

  const world: World = {
    fake,
    async job(kind, options = {}) {
      const run = options.run === undefined || options.run === null ? null : { id: options.run, attempt: 1 };
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
      const deps: ModeDeps = redactedModeDeps(
        {
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
          run,
          chooseSandbox: (mode) => chooseSandbox({ mode, env: process.env }),
          nodePath: process.execPath,
          sudoWorks: async () => false,
        },
        { secrets: [token] },
      );
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
    async runOf(mission, item, attempt = 1) {
      const runner = (await world.mission(mission)).items.find((i) => i.id === item)?.attempts.find((a) => a.n === attempt)?.runner ?? null;
      const run = runIdOf(runner);
      if (run !== null) return run;
      // No run recorded (a dispatch GitHub answered without the run, as Enterprise Server does):
      // the leg runs in a work run of its own, which its queue and publish jobs know as theirs.
      const key = `${mission} ${item}#${attempt}`;
      let made = unrecorded.get(key);
      if (made === undefined) {
        const { runId } = await reader.dispatchWorkflow({
          workflow: "naruto.yml",
          ref: "main",
          inputs: { mission, phase: "work", items: JSON.stringify([{ item, attempt }]) },
        });
        if (runId === null) throw new Error("the fake answered the dispatch without its run");
        unrecorded.set(key, (made = runId));
      }
      return made;
    },
    async legJob(mission, item, attempt = 1) {
      return { run_id: await world.runOf(mission, item, attempt), run_attempt: 1, name: workLegName(mission, item, attempt) };
    },
    async uploadLeg(mission, item, attempt, folder) {
      const run = await world.runOf(mission, item, attempt);
      const name = workLegName(mission, item, attempt);
      const jobId = fake.setJob(run, { name, status: "in_progress" });
      fake.setJobStep(jobId, { number: 5, name: UPLOAD_STEP, status: "in_progress" });
      const packed = await zipForUpload({ paths: [folder], includeHidden: false, within: dirname(folder) });
      if (packed !== null) {
        const runtime = fake.issueRuntimeToken({ repo: REPO, runId: run, jobId });
        const answer = await fetch(`${fake.url}/_actions/results/artifacts?name=${workArtifactName(item, attempt)}&overwrite=true`, {
          method: "POST",
          headers: { authorization: `Bearer ${runtime}` },
          body: new Uint8Array(packed.zip),
        });
        fake.revokeRuntimeToken(runtime);
        if (answer.status !== 201) throw new Error(`the upload answered ${answer.status}`);
      }
      fake.setJobStep(jobId, { number: 5, name: UPLOAD_STEP, status: "completed", conclusion: "success" });
      fake.setJob(run, { name, status: "completed", conclusion: "success" });
    },
    async workRun(mission, item, attempt = 1, options = {}) {
      const run = await world.runOf(mission, item, attempt);
      const job = await world.job("agent", { checkout: `naruto/${mission}`, run });
      await prepareWork(job.deps, { mission, items: `${item}#${attempt}` });
      await world.agentStep(job);
      const from = job.log.outputs["artifact"];
      if (from === undefined) throw new Error("the work job set no artifact output");
      await options.beforeUpload?.(from);
      await world.uploadLeg(mission, item, attempt, from);
      return newFolder("naruto-artifacts-");
    },
    async integrate(mission, dispatch, artifacts, options = {}) {
      const now = options.now === undefined ? {} : { now: options.now };
      // A work run's own queue and publish jobs run in it (its id names the legs they take).
      const first = dispatch.phase === "work" ? dispatch.items[0] : undefined;
      const run = first === undefined ? null : await world.runOf(mission, first.item, first.attempt);
      const queue = await world.job("queue", { checkout: "main", run, ...now });
      await prepareQueue(queue.deps, { mission, dispatch });
      await world.agentStep(queue);
      await world.upload(queue, artifacts, QUEUE_ARTIFACT);
      await options.beforePublish?.(artifacts, queue);
      const publish = await world.job("publish", { checkout: "main", run, ...now });
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
