/**
 * The `workflow_run` and `workflow_job` webhooks GitHub sends while a run progresses, for tests
 * where an app listens (the naruto App keeps its tracking comment current from them). The
 * simulator mirrors each dispatch run's progress into the fake GitHub (`setRunStatus`,
 * `setJob`); this module watches those calls and delivers, signed by the fake, what GitHub would
 * deliver at that moment:
 *
 *   run dispatched        → workflow_run  requested
 *   run starts            → workflow_run  in_progress
 *   a job is queued       → workflow_job  queued (waits for a runner)
 *   a job starts / ends   → workflow_job  in_progress / completed (skipped jobs: completed)
 *   run ends              → workflow_run  completed
 *
 * A run's `display_title` is its `run-name`, evaluated as the simulator does (the fake's run
 * gets it only once the simulator starts it). Each payload is built when the change happens (the state it
 * describes), and deliveries go out one at a time in that order. A dispatch run returns only
 * once its deliveries are answered, so a test that reads the fake after `runUntilQuiet` sees
 * what the app did with them. A delivery that finds no one listening (the app restarting) is
 * recorded as failed and not retried, as on GitHub.
 *
 * @example
 *   const hooks = runWebhooks({ fake, repo: "acme/demo", url: () => appUrl });
 *   const sim = hooks.wrap(await createActionsSimulator({ fake: hooks.fake, repo: "acme/demo", actionDir }));
 *   await runUntilQuiet({ fake, simulator: sim });
 */
import { gitText } from "../../../src/git/run-git.ts";
import type { DeliveryResult, DispatchRecord, FakeGitHub } from "../fake-github/index.ts";
import { testGit } from "../git-repo.ts";
import { dispatchTrigger } from "./events.ts";
import type { ActionsSimulator } from "./simulator.ts";
import { parseWorkflow } from "./workflow.ts";
import { runTitle } from "./workflow-run.ts";

export interface SentRunWebhook {
  readonly event: "workflow_run" | "workflow_job";
  readonly action: string;
  readonly runId: number;
  /** The job's name for `workflow_job`. */
  readonly job: string | null;
  readonly result: DeliveryResult;
}

export interface RunWebhooks {
  /** The fake to give the simulator: its run and job updates also send webhooks. */
  readonly fake: FakeGitHub;
  /** The simulator whose dispatch runs announce themselves and wait for their deliveries. */
  wrap(simulator: ActionsSimulator): ActionsSimulator;
  /** Every delivery so far, in order. */
  readonly sent: readonly SentRunWebhook[];
  /** Resolves once every delivery so far was answered (or failed). */
  idle(): Promise<void>;
}

export interface RunWebhooksInput {
  readonly fake: FakeGitHub;
  /** `owner/name` of the repository whose runs are announced. */
  readonly repo: string;
  /** Where to deliver; asked at each delivery (an app may move). Defaults to the fake's `webhook.url`. */
  readonly url?: () => string;
  readonly secret?: string;
  /** The repository variables the simulator has (a `run-name` may use them). */
  readonly vars?: Readonly<Record<string, string>>;
}

export function runWebhooks(input: RunWebhooksInput): RunWebhooks {
  const { fake, repo } = input;
  const sent: SentRunWebhook[] = [];
  let chain: Promise<void> = Promise.resolve();
  // The fake's runs have no title of their own; GitHub's `display_title` is the run's `run-name`.
  const titles = new Map<number, string>();
  const git = testGit();

  const titleOf = async (record: DispatchRecord): Promise<string> => {
    const state = fake.repo(repo);
    const workflow = parseWorkflow(await gitText(git, { args: ["show", `${record.sha}:${record.workflow}`], cwd: state.dir }), record.workflow);
    return runTitle({
      id: record.runId,
      runNumber: state.runs.get(record.runId)?.runNumber ?? record.runId,
      trigger: dispatchTrigger({ record, on: workflow.on, payloads: fake.payloads }),
      workflow,
      repository: { fullName: state.fullName, id: state.id, owner: state.owner.login },
      serverUrl: fake.url,
      apiUrl: fake.apiUrl,
      vars: input.vars ?? {},
    });
  };
  const runPayload = (runId: number, action: "requested" | "in_progress" | "completed") => {
    const payload = fake.payloads.workflowRun({ repo, runId, action });
    const title = titles.get(runId);
    const run = payload["workflow_run"];
    return title === undefined || typeof run !== "object" || run === null ? payload : { ...payload, workflow_run: { ...run, display_title: title } };
  };

  const send = (event: SentRunWebhook["event"], action: string, runId: number, job: string | null, payload: unknown) => {
    chain = chain.then(async () => {
      const result = await fake.deliver({
        event,
        payload,
        ...(input.url ? { url: input.url() } : {}),
        ...(input.secret !== undefined ? { secret: input.secret } : {}),
      });
      sent.push({ event, action, runId, job, result });
    });
  };
  const ours = (runId: number) => fake.repo(repo).runs.has(runId);
  const runAction = (status: string): "in_progress" | "completed" | null =>
    status === "in_progress" ? "in_progress" : status === "completed" ? "completed" : null;

  const observed: FakeGitHub = new Proxy(fake, {
    get(target, property, receiver) {
      if (property === "setRunStatus") {
        const setRunStatus: FakeGitHub["setRunStatus"] = (runId, update) => {
          target.setRunStatus(runId, update);
          const action = runAction(update.status);
          if (action !== null && ours(runId)) send("workflow_run", action, runId, null, runPayload(runId, action));
        };
        return setRunStatus;
      }
      if (property === "setJob") {
        const setJob: FakeGitHub["setJob"] = (runId, update) => {
          const jobId = target.setJob(runId, update);
          const action = update.status === "queued" ? "queued" : runAction(update.status);
          if (action !== null && ours(runId)) send("workflow_job", action, runId, update.name, target.payloads.workflowJob({ repo, runId, jobId, action }));
          return jobId;
        };
        return setJob;
      }
      return Reflect.get(target, property, receiver) as unknown;
    },
  });

  return {
    fake: observed,
    sent,
    idle: () => chain,
    wrap: (simulator) => ({
      get isolation() {
        return simulator.isolation;
      },
      get runs() {
        return simulator.runs;
      },
      get runners() {
        return simulator.runners;
      },
      runDispatch: async (record) => {
        if (ours(record.runId)) {
          titles.set(record.runId, await titleOf(record));
          send("workflow_run", "requested", record.runId, null, runPayload(record.runId, "requested"));
        }
        const result = await simulator.runDispatch(record);
        await chain;
        return result;
      },
      trigger: (trigger) => simulator.trigger(trigger),
      takeDispatches: () => simulator.takeDispatches(),
      runEvents: () => simulator.runEvents(),
      close: () => simulator.close(),
    }),
  };
}
