/**
 * What the sweep remembers between its runs, so that a repository's history of finished missions
 * costs it nothing: which missions it found ended, at which version of their state, and whether
 * their worker branches are deleted already (the retention passed). A later sweep loads only the
 * missions whose state moved since (or that it never saw ended): one list of the state refs and
 * this one record, instead of two requests for every mission the repository ever had, every 15
 * minutes, against the job token's 1,000 requests an hour.
 *
 * The record is the file `ended.json` of a commit at `refs/heads/naruto-state/sweep/ended` (a
 * name with a slash, so never a mission id), replaced (no history) when it changes. It is only a
 * shortcut: an entry counts only while the mission's state ref still points at the version it
 * names, so a record that is stale, lost, corrupt or written by a racing sweep makes the sweep
 * load a mission again, never skip one it should not.
 */
import { RefExistsError } from "../../github/index.ts";
import type { GitHubPort } from "../../github/index.ts";
import { GITHUB_STATE_REF_PREFIX } from "../../store/index.ts";

export const SWEEP_MEMORY_REF = `${GITHUB_STATE_REF_PREFIX}sweep/ended`;
const FILE = "ended.json";

export interface EndedMission {
  /** The version (state commit) at which the sweep found it ended. */
  readonly version: string;
  readonly updated_at: string;
  /** Its worker branches are deleted (it ended longer ago than the retention). */
  readonly cleaned: boolean;
}

export interface SweepMemory {
  readonly ended: ReadonlyMap<string, EndedMission>;
  /** The record's text as read (null: none): written again only when it changes. */
  readonly text: string | null;
}

/** The record as the last sweep left it; an empty one when there is none or it is not naruto's (a failed read throws: the sweep then starts without it). */
export async function recallSweep(github: Pick<GitHubPort, "getRef" | "readFile">): Promise<SweepMemory> {
  const version = await github.getRef(SWEEP_MEMORY_REF);
  const text = version === null ? null : await github.readFile({ path: FILE, ref: version });
  return { ended: parse(text), text };
}

/** Whether the sweep can leave mission `id`, whose state is at `version`, alone this time. */
export function settled(memory: SweepMemory, id: string, version: string | undefined, now: Date, retentionMs: number): EndedMission | null {
  const known = memory.ended.get(id);
  if (known === undefined || known.version !== version) return null;
  return known.cleaned || now.getTime() - Date.parse(known.updated_at) < retentionMs ? known : null;
}

/** Writes `ended` (missions no longer listed are dropped by the caller) when it differs from what was read. */
export async function rememberSweep(
  github: Pick<GitHubPort, "createTree" | "createCommit" | "createRef" | "updateRef">,
  memory: SweepMemory,
  ended: ReadonlyMap<string, EndedMission>,
): Promise<boolean> {
  const entries = [...ended.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const text = `${JSON.stringify(Object.fromEntries(entries), null, 1)}\n`;
  if (text === memory.text || (memory.text === null && entries.length === 0)) return false;
  const tree = await github.createTree({ entries: [{ path: FILE, mode: "100644", content: text }] });
  const commit = await github.createCommit({ message: `naruto sweep: ${entries.length} ended mission(s) remembered`, tree, parents: [] });
  // A racing sweep's record is as good as this one: the last write wins.
  if (memory.text === null) {
    try {
      await github.createRef({ ref: SWEEP_MEMORY_REF, sha: commit });
      return true;
    } catch (error) {
      if (!(error instanceof RefExistsError)) throw error;
    }
  }
  await github.updateRef({ ref: SWEEP_MEMORY_REF, sha: commit, force: true });
  return true;
}

function parse(text: string | null): Map<string, EndedMission> {
  const found = new Map<string, EndedMission>();
  if (text === null) return found;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return found; // not a record naruto wrote: start afresh
  }
  if (typeof raw !== "object" || raw === null) return found;
  for (const [id, entry] of Object.entries(raw as Record<string, unknown>)) {
    const e = entry as Partial<EndedMission> | null;
    if (e === null || typeof e.version !== "string" || typeof e.updated_at !== "string" || typeof e.cleaned !== "boolean") continue;
    found.set(id, { version: e.version, updated_at: e.updated_at, cleaned: e.cleaned });
  }
  return found;
}
