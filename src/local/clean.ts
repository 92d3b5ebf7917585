/**
 * `naruto clean`: what finished missions leave on this machine. The worker branches of
 * integrated items (`naruto/<mission>--<item>`: the queue holds their change) and the work
 * directories go; the queue branch (the result) stays unless asked (`queues`), and so does work
 * found nowhere else unless asked (`kept`): the worker branch of an item that was not integrated
 * (a red verify, a conflict) and what an attempt stopped halfway kept
 * (`refs/naruto/attempts/<mission>/…`). No work is lost by default. A mission that has not ended, or whose driver lock a live process
 * holds, is never touched. The mission's record and reports stay: `naruto status` still lists it.
 */
import type { Git } from "../git/index.ts";
import { gitText, updateRefs } from "../git/index.ts";
import { createLocalMissionStore } from "../store/index.ts";
import type { Mission } from "../mission/index.ts";
import { isMissionTerminal } from "../mission/index.ts";
import { MissionNotFoundError } from "../mission/index.ts";
import { defaultWorkRoot, listMissionWorkDirs, missionWorkFolder, removeMissionFolder, workRepo } from "../sandbox/index.ts";
import { holdMission, MissionStillRunningError } from "./mission-lock.ts";
import { loadRunOverrides } from "./run-overrides.ts";

export interface CleanOptions {
  /** Only missions that ended at least this long ago (milliseconds); null: any finished one. */
  readonly olderThanMs: number | null;
  /** Only this mission. */
  readonly mission: string | null;
  /** Also the queue branches `naruto/<mission>`. */
  readonly queues: boolean;
  /** Also work found nowhere else: worker branches of items not integrated, and `refs/naruto/attempts/<mission>/…`. */
  readonly kept: boolean;
  /** List what would go; delete nothing. */
  readonly dryRun: boolean;
}

export interface CleanDeps {
  readonly git: Git;
  readonly repoDir: string;
  readonly commonDir: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly now: () => Date;
}

/** One mission's part of a clean. */
export interface CleanedMission {
  readonly id: string;
  readonly status: Mission["status"];
  /** Full ref names deleted (or that would be). */
  readonly refs: readonly string[];
  /** Work directories removed (or that would be). */
  readonly workDirs: readonly string[];
  /** Why the mission was left alone, when it was. */
  readonly skipped: string | null;
}

export async function cleanMissions(deps: CleanDeps, options: CleanOptions): Promise<CleanedMission[]> {
  const store = createLocalMissionStore({ git: deps.git, repoDir: deps.repoDir });
  const ids = options.mission !== null ? [options.mission] : await store.list();
  const allRefs = await listRefs(deps);
  const repo = await workRepo(deps.git, deps.repoDir);
  const cleaned: CleanedMission[] = [];
  for (const id of ids.sort()) {
    const stored = await store.load(id);
    if (stored === null) {
      if (options.mission !== null) throw new MissionNotFoundError(id);
      continue;
    }
    const m = stored.mission;
    const skip = (why: string) => cleaned.push({ id, status: m.status, refs: [], workDirs: [], skipped: why });
    if (!isMissionTerminal(m.status)) {
      skip(`it has not ended (${m.status}): \`naruto cancel ${id}\` first`);
      continue;
    }
    if (options.olderThanMs !== null && deps.now().getTime() - Date.parse(m.updated_at) < options.olderThanMs) continue;
    // A worker branch whose item was integrated holds nothing the queue does not; any other holds
    // the only copy of a checkpoint (a red verify, a conflict), which is kept work.
    const integrated = new Set(m.items.filter((i) => i.status === "integrated").map((i) => `refs/heads/naruto/${id}--${i.id}`));
    const refs = allRefs.filter(
      (r) =>
        integrated.has(r) ||
        (options.kept && (r.startsWith(`refs/heads/naruto/${id}--`) || r.startsWith(`refs/naruto/attempts/${id}/`))) ||
        (options.queues && r === `refs/heads/naruto/${id}`),
    );
    const overrides = await loadRunOverrides(deps.commonDir, id);
    const folder = missionWorkFolder(overrides.workdir ?? defaultWorkRoot(deps.env, { override: null, cwd: deps.cwd }), repo, id);
    const workDirs = (await listMissionWorkDirs(folder)).map((d) => d.root);
    if (refs.length === 0 && workDirs.length === 0) continue;
    if (options.dryRun) {
      cleaned.push({ id, status: m.status, refs, workDirs, skipped: null });
      continue;
    }
    let release: () => Promise<void>;
    try {
      release = await holdMission(deps.commonDir, id);
    } catch (error) {
      if (!(error instanceof MissionStillRunningError)) throw error;
      skip(`a naruto process (pid ${error.runner}) still holds it`);
      continue;
    }
    try {
      if (refs.length > 0)
        await deps.git(
          updateRefs(
            deps.repoDir,
            refs.map((ref) => ({ verb: "delete", ref })),
          ),
        );
      await removeMissionFolder(folder);
      cleaned.push({ id, status: m.status, refs, workDirs, skipped: null });
    } finally {
      await release();
    }
  }
  return cleaned;
}

/** How many branches and work directories finished missions left: `naruto status` mentions a clean past a few. */
export async function leftoverBranchCount(deps: Pick<CleanDeps, "git" | "repoDir">, finished: readonly string[]): Promise<number> {
  const refs = await listRefs(deps);
  return refs.filter((r) => finished.some((id) => r.startsWith(`refs/heads/naruto/${id}--`))).length;
}

async function listRefs(deps: Pick<CleanDeps, "git" | "repoDir">): Promise<string[]> {
  const text = await gitText(deps.git, { args: ["for-each-ref", "--format=%(refname)", "refs/heads/naruto/", "refs/naruto/attempts/"], cwd: deps.repoDir });
  return text === "" ? [] : text.split("\n");
}
