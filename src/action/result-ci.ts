/**
 * How the queue pull request gets the repository's CI in this job (report/result-ci.ts), from
 * the Action's inputs: a token that starts workflows (`ci-token`) first; else the naruto App,
 * installed when the template says so (`app`, the repository variable NARUTO_APP) or when
 * naruto's comments are written by a login other than the workflow's (`bot-login`, the variable
 * NARUTO_BOT_LOGIN): `naruto init --app` sets only that one, and leaves NARUTO_APP unset.
 */
import type { ResultCi } from "../report/index.ts";

export const WORKFLOW_LOGIN = "github-actions[bot]";

export function resultCiOf(input: { ciToken: string; app: string; botLogin: string }): ResultCi {
  if (input.ciToken !== "") return "token";
  return input.app === "true" || (input.botLogin !== "" && input.botLogin !== WORKFLOW_LOGIN) ? "app" : "none";
}
