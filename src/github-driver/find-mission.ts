import { issueIndexPrefix } from "../store/index.ts";
import type { GitHubPort } from "../github/index.ts";
import type { Mission } from "../mission/index.ts";
import type { MissionStore } from "../mission/index.ts";

/**
 * The missions started from one issue or pull request, newest first: the issue's index refs
 * (made with each mission, src/store/github-store.ts) name them, one listing, then one load
 * each, eight at a time. What this costs grows with the missions of this issue, never with the
 * repository's history. The state, not a marker in a comment, says which mission belongs to
 * which issue: comments are display only.
 */
export async function missionsOfIssue(deps: { store: MissionStore; github: Pick<GitHubPort, "listRefs"> }, repo: string, issue: number): Promise<Mission[]> {
  const prefix = issueIndexPrefix(issue);
  const ids = (await deps.github.listRefs(prefix)).map((r) => r.ref.slice(prefix.length)).filter((id) => id !== "" && !id.includes("/"));
  const found: Mission[] = [];
  for (let i = 0; i < ids.length; i += 8) {
    const loaded = await Promise.all(ids.slice(i, i + 8).map((id) => deps.store.load(id).catch(() => null)));
    for (const stored of loaded) {
      const source = stored?.mission.source;
      if (stored && source?.kind === "github" && source.issue === issue && source.repo.toLowerCase() === repo.toLowerCase()) found.push(stored.mission);
    }
  }
  return found.sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
}
