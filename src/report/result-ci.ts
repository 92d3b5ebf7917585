/**
 * Whether the repository's CI runs on the queue pull request, said plainly in the tracking and
 * verdict comments: GitHub starts no workflow for pushes and pull requests made
 * with a workflow's `GITHUB_TOKEN`, so without a token that starts workflows the result gets no
 * CI and required checks stay pending.
 *
 * - `app`: the naruto App opens the queue pull request with its installation token, and when the
 *   mission ends closes and reopens it once if its head has no CI yet, so the repository's
 *   `pull_request` workflows run on the result.
 * - `token`: the queue is pushed and the pull request opened with the token the workflow gives
 *   naruto for it (`ci-token`: an App installation token, or a fine-grained personal access
 *   token), so every update of the queue runs the repository's CI, as a person's push would.
 * - `none`: both are made with `GITHUB_TOKEN`: no CI.
 */
import type { Mission } from "../mission/index.ts";

export type ResultCi = "app" | "token" | "none";

/** The line for a mission that has (or will have) a queue pull request; null when it has none. */
export function resultCiNote(mission: Mission, ci: ResultCi): string | null {
  if (mission.kind === "review") return null;
  switch (ci) {
    case "app":
      return "**CI:** the naruto App opens the queue pull request, and starts the repository's workflows on its final head when the mission ends.";
    case "token":
      return "**CI:** the queue is pushed and its pull request opened with the token that starts workflows (`ci-token`): the repository's checks run on every update.";
    case "none":
      return (
        "⚠️ **No CI on the queue pull request:** naruto pushes it with the workflow's `GITHUB_TOKEN`, and GitHub starts no workflow for that token's " +
        "pushes and pull requests, so required checks stay pending. To run them: close and reopen the pull request, or push to its branch; " +
        "or give the workflow's `publish` job a token that starts workflows (`ci-token`), or install the naruto App (docs/action.md)."
      );
  }
}
