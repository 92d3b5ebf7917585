/**
 * Everything a mode needs from outside, in one object (STYLE.md 4): the GitHub port and the
 * mission store on it, git, the runner's environment, the clock and the folders. `main.ts`
 * builds it from the runner; tests build it against the fake GitHub.
 *
 * The agent step (`AgentStepDeps`) gets no GitHub port and no remote: it runs without a token.
 */
import type { SandboxMode } from "../config/index.ts";
import type { Git } from "../git/index.ts";
import type { Sandbox } from "../sandbox/index.ts";
import type { CommentEvent, PullRequestHead } from "../github-driver/index.ts";
import type { DriverDeps } from "../github-driver/index.ts";
export type { DispatchInput } from "../github-driver/index.ts";
import type { ActionLog } from "./log.ts";
import type { Remote } from "./remote.ts";

/** What the agent step (a `run:` step without any token) needs: git, the folders, the clock, the sandbox. */
export interface AgentStepDeps {
  readonly log: ActionLog;
  readonly git: Git;
  /** The step's environment: agents get only the allowlisted part of it (docs/architecture.md). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The checkout of this job (`GITHUB_WORKSPACE`). */
  readonly workspace: string;
  /** A folder of this job outside the checkout (`RUNNER_TEMP`). */
  readonly tempDir: string;
  readonly now: () => Date;
  /** The sandbox for the config's `sandbox:` (bubblewrap when it works, see src/sandbox/choose.ts). */
  readonly chooseSandbox: (mode: SandboxMode) => Promise<Sandbox>;
  /** The Node.js running naruto, shown read-only to agents. */
  readonly nodePath: string | null;
  /**
   * Whether this step could still become root (`sudo -n true` works): the workflow removes sudo
   * before any agent step (templates/naruto.yml), and the agent step refuses to run while it can.
   */
  readonly sudoWorks: () => Promise<boolean>;
}

export interface ModeDeps extends DriverDeps, AgentStepDeps {
  readonly log: ActionLog;
  /** `owner/name`. */
  readonly repo: string;
  /** Path of the config in the repository. */
  readonly configPath: string;
  /**
   * The git remote with the credentials of this job, for the modes that fetch or push
   * (integrate). The token goes to git in its environment, never in `.git/config` or on a
   * command line, so nothing the queue's verify command runs finds it in the checkout.
   */
  readonly remote: Remote;
  /**
   * The git remote with the token that starts workflows (`ci-token`), for the push of the queue
   * branch: the repository's CI runs on it. Absent: the queue is pushed with `remote`.
   */
  readonly ciRemote?: Remote;
  /**
   * This run and its attempt (`GITHUB_RUN_ID`, `GITHUB_RUN_ATTEMPT`; null outside a runner): a work
   * run's queue and publish jobs take the legs of this run, and a work leg's result names its job.
   */
  readonly run: { readonly id: number; readonly attempt: number } | null;
}

/** What the `command` mode gets from the event. */
export interface CommandInput {
  readonly event: CommentEvent | null;
  readonly selfLogins: readonly string[];
  readonly pullRequestHead: (number: number) => Promise<PullRequestHead | null>;
}
