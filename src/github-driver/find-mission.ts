import type { Mission } from "../mission/document.ts";
import type { MissionStore } from "../mission/store.ts";

/**
 * The missions started from one issue or pull request, newest first. Reads every stored
 * mission (one listing, then one load each, eight at a time): comments are display only, so
 * the state, not a marker in a comment, says which mission belongs to which issue.
 */
export async function missionsOfIssue(store: MissionStore, repo: string, issue: number): Promise<Mission[]> {
  const ids = await store.list();
  const found: Mission[] = [];
  for (let i = 0; i < ids.length; i += 8) {
    const loaded = await Promise.all(ids.slice(i, i + 8).map((id) => store.load(id).catch(() => null)));
    for (const stored of loaded) {
      const source = stored?.mission.source;
      if (stored && source?.kind === "github" && source.issue === issue && source.repo.toLowerCase() === repo.toLowerCase()) found.push(stored.mission);
    }
  }
  return found.sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
}
