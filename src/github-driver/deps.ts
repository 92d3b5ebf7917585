/**
 * What the GitHub driver needs from outside: the port, the mission store on GitHub, a clock, and
 * where to dispatch. The App and the Action build one each; tests point it at the fake GitHub.
 */
import type { ResultCi } from "../report/index.ts";
import type { GitHubPort } from "../github/index.ts";
import type { MissionStore } from "../mission/index.ts";

/** Where the driver writes what it did: the job log in the Action, the App's logger. */
export interface DriverLog {
  info(message: string): void;
  warning(message: string): void;
}

/** The login of a workflow's `GITHUB_TOKEN`: naruto's own jobs write as it. */
export const WORKFLOW_BOT = "github-actions[bot]";

/**
 * Whose marker comments and issues are naruto's: its `botLogin` and the workflow's bot. With the
 * App installed both write (the App answers commands, the workflow's jobs publish), and each
 * must find what the other made instead of making a second one. Null `botLogin`: anyone's.
 */
export function narutoAuthors(deps: Pick<DriverDeps, "botLogin">): { author?: readonly string[] } {
  return deps.botLogin === null ? {} : { author: [...new Set([deps.botLogin, WORKFLOW_BOT])] };
}

export interface DriverDeps {
  readonly github: GitHubPort;
  readonly store: MissionStore;
  readonly now: () => Date;
  /** The workflow file naruto's runs are dispatched to (`naruto.yml`). */
  readonly workflow: string;
  /** The ref runs are dispatched on: the default branch, whose workflow file is the reviewed one. */
  readonly ref: string;
  readonly log: DriverLog;
  /**
   * The login naruto's comments are written by (`github-actions[bot]` with the workflow token,
   * `<app>[bot]` for the App). A comment carrying naruto's marker counts only when it is by this
   * login or the workflow's bot ({@link narutoAuthors}), so a marker pasted by someone else is
   * never taken for naruto's comment. Null: any.
   */
  readonly botLogin: string | null;
  /** This run (Action) for links in comments; null when there is none. */
  readonly runUrl: string | null;
  /**
   * How the queue pull request gets the repository's CI (report/result-ci.ts): `app`, the naruto
   * App opens it (and restarts its CI at the end); `token`, it is opened with `ciGitHub`, a token
   * that starts workflows; absent or `none`, with this port's token, which starts none.
   */
  readonly resultCi?: ResultCi;
  /** With `resultCi: "token"`: the port whose token starts workflows (it opens the queue pull request). */
  readonly ciGitHub?: GitHubPort;
}
