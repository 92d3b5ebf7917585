/**
 * The Action's entry point (`dist/index.js`): the one place that reads the process environment
 * and the event file, wires the adapters, runs the mode and reports a failure to the runner.
 *
 * The same bundle is two programs. Run by the runner as the action (`INPUT_MODE` set) it holds
 * the job's token and runs a mode; for `plan`, `work` and `review` that only prepares the job
 * and exits. Run by the workflow's next step as `node "$NARUTO_CLI"` with `NARUTO_PREPARED` (a
 * plain `run:` step: no `INPUT_*`, no token, no `ACTIONS_RUNTIME_TOKEN`) it runs the agent.
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import * as core from "@actions/core";
import { getExecOutput } from "@actions/exec";
import { CONFIG_PATH } from "../config/index.ts";
import { createGit } from "../git/index.ts";
import { createEtagCache, createGitHub } from "../github/index.ts";
import { createGitHubMissionStore } from "../store/index.ts";
import { pullRequestHeadVia } from "../github-driver/index.ts";
import { actionContext } from "./context.ts";
import { coreLog } from "./core-log.ts";
import type { AgentStepDeps, ModeDeps } from "./deps.ts";
import { commentEventOf, dispatchInputOf } from "../github-driver/index.ts";
import { remoteFor, scrubbedEnv } from "./remote.ts";
import { readPrepared } from "./prepared.ts";
import { redactedModeDeps, redactedStepDeps } from "./redacted-deps.ts";
import { createRedactor, secretValues } from "../redact/index.ts";
import { DEFAULT_WATCH, runAgentStep, runMode } from "./run-mode.ts";
import { resultCiOf, WORKFLOW_LOGIN } from "./result-ci.ts";
import { chooseSandbox } from "../sandbox/index.ts";
import { sudoWorks } from "../sandbox/index.ts";

const USER_AGENT = "naruto-action/0.1";

/** A cancelled job gets SIGINT/SIGTERM: the agent is stopped and its attempt ends as interrupted. */
function stopSignal(): AbortSignal {
  const stop = new AbortController();
  process.once("SIGTERM", () => stop.abort());
  process.once("SIGINT", () => stop.abort());
  return stop.signal;
}

/** What runs agents in a job: the sandbox of the config's mode, the Node.js running naruto, the sudo check. */
function containment(env: NodeJS.ProcessEnv): Pick<AgentStepDeps, "chooseSandbox" | "nodePath" | "sudoWorks"> {
  return {
    // On a runner, only the sandbox: no config turns it off there (issue 32).
    chooseSandbox: (mode) => chooseSandbox({ mode, env, runner: env["GITHUB_ACTIONS"] === "true" }),
    nodePath: process.execPath,
    sudoWorks: () => sudoWorks(env),
  };
}

async function agentStep(env: NodeJS.ProcessEnv, prepared: string): Promise<void> {
  const ctx = actionContext(env, process.cwd());
  const deps: AgentStepDeps = redactedStepDeps({
    log: coreLog({ summary: Boolean(env["GITHUB_STEP_SUMMARY"]) }),
    git: createGit({ env: scrubbedEnv(env) }),
    env,
    workspace: ctx.workspace,
    tempDir: ctx.tempDir,
    now: () => new Date(),
    ...containment(env),
  });
  await runAgentStep(deps, await readPrepared(prepared), { signal: stopSignal() });
}

/** The watch job's pause between reads: `NARUTO_WATCH_INTERVAL_MS` (a test runner's), else 15 s. */
function watchTiming(env: NodeJS.ProcessEnv): typeof DEFAULT_WATCH {
  const given = Number(env["NARUTO_WATCH_INTERVAL_MS"] ?? "");
  return env["NARUTO_WATCH_INTERVAL_MS"] && Number.isFinite(given) && given >= 100 ? { ...DEFAULT_WATCH, pollMs: given } : DEFAULT_WATCH;
}

async function main(): Promise<void> {
  const env = process.env;
  const prepared = env["NARUTO_PREPARED"];
  if (env["INPUT_MODE"] === undefined && prepared !== undefined && prepared !== "") return agentStep(env, prepared);
  const token = core.getInput("github-token");
  if (token !== "") core.setSecret(token);
  const ciToken = core.getInput("ci-token");
  if (ciToken !== "") core.setSecret(ciToken);
  // Nothing naruto starts inherits a token by accident (each child gets an explicit environment).
  delete env["INPUT_GITHUB-TOKEN"];
  delete env["INPUT_CI-TOKEN"];
  const ctx = actionContext(env, process.cwd());
  const log = coreLog({ summary: Boolean(env["GITHUB_STEP_SUMMARY"]) });
  // GitHub asks for >= 1 s between writes; a test server or an Enterprise Server may allow less.
  const interval = Number(env["NARUTO_GITHUB_WRITE_INTERVAL_MS"] ?? "");
  const throttle =
    Number.isFinite(interval) && interval >= 0 && env["NARUTO_GITHUB_WRITE_INTERVAL_MS"]
      ? { throttle: { writeIntervalMs: interval, notificationIntervalMs: interval } }
      : {};
  const portFor = (auth: string) =>
    createGitHub({
      token: auth,
      repo: ctx.repo,
      baseUrl: ctx.apiUrl,
      userAgent: USER_AGENT,
      ...throttle,
      // A job reads the mission state and its comments more than once: unchanged answers are 304s.
      etags: createEtagCache(),
      log: { debug: (m) => core.debug(m), info: (m) => core.info(m), warn: (m) => core.warning(m), error: (m) => core.error(m) },
    });
  const github = portFor(token);
  // How the queue pull request gets CI (report/result-ci.ts): a token that starts workflows, the
  // App (which opens the pull request itself), or neither.
  const botLogin = core.getInput("bot-login") || WORKFLOW_LOGIN;
  const resultCi = resultCiOf({ ciToken, app: core.getInput("app"), botLogin });
  const ci = resultCi === "token" ? { resultCi, ciGitHub: portFor(ciToken), ciRemote: remoteFor(ctx.serverUrl, ctx.fullName, ciToken) } : { resultCi };
  const gitEnv = scrubbedEnv(env);
  const deps: ModeDeps = redactedModeDeps(
    {
      github,
      store: createGitHubMissionStore({ github }),
      now: () => new Date(),
      workflow: ctx.workflow,
      ref: ctx.ref,
      log,
      botLogin,
      runUrl: ctx.runUrl,
      git: createGit({ env: gitEnv }),
      env,
      repo: ctx.fullName,
      workspace: ctx.workspace,
      tempDir: ctx.tempDir,
      configPath: core.getInput("config") || CONFIG_PATH,
      remote: remoteFor(ctx.serverUrl, ctx.fullName, token),
      ...ci,
      run: ctx.runId === null ? null : { id: ctx.runId, attempt: ctx.runAttempt },
      ...containment(env),
    },
    { secrets: [token, ...(ciToken === "" ? [] : [ciToken])] },
  );
  const payload: unknown = ctx.eventPath ? JSON.parse(await readFile(ctx.eventPath, "utf8")) : null;
  const version = await getExecOutput("git", ["--version"], { silent: true, ignoreReturnCode: true, env: gitEnv });
  core.debug(`naruto ${USER_AGENT}, ${version.stdout.trim() || "git not found"}`);

  await runMode(
    deps,
    {
      mode: core.getInput("mode", { required: true }),
      mission: core.getInput("mission"),
      items: core.getInput("items"),
      artifacts: core.getInput("artifacts"),
    },
    {
      command: {
        event: commentEventOf(ctx.eventName, payload),
        selfLogins: [...new Set([botLogin, "github-actions[bot]"])],
        pullRequestHead: pullRequestHeadVia(deps.github),
      },
      dispatch: dispatchInputOf(ctx.eventName, payload),
      entryPoint: fileURLToPath(import.meta.url),
      runId: ctx.runId,
      watch: watchTiming(env),
    },
  );
}

main().catch((error: unknown) => {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  core.setFailed(`naruto: ${createRedactor({ secrets: secretValues({ env: process.env }) }).redact(text)}`);
});
