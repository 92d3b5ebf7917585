/**
 * What the engine's parts need from a driver: the repository, its config, the runner's
 * environment and clock, and where and how untrusted processes run (the sandbox and the per-user
 * folder of work directories). The local driver and the Action's jobs each build one.
 */
import type { Config } from "../config/index.ts";
import type { Git } from "../git/index.ts";
import type { Sandbox } from "../sandbox/index.ts";
import { createWorkDir, missionWorkFolder, removeWorkDir, workRepo, type WorkDir } from "../sandbox/index.ts";

export interface EngineContext {
  readonly git: Git;
  /** The repository the mission runs in (the user's, or a job's clone). */
  readonly repoDir: string;
  /** `git rev-parse --git-common-dir`, absolute: where the mission's records are kept. */
  readonly commonDir: string;
  readonly config: Config;
  /** The runner's environment, from which only allowlisted names reach an agent. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly now: () => Date;
  /** What untrusted processes run in. */
  readonly sandbox: Sandbox;
  /** The per-user folder of work directories (see src/sandbox/work-dir.ts). */
  readonly workRoot: string;
  /** The Node.js running naruto (`process.execPath`): shown read-only to agents. */
  readonly nodePath: string | null;
  /**
   * Stops what the engine runs for the mission as a whole (the planner, the review agent, the
   * queue's verify) when the run shuts down or the mission ends: they are stopped like an
   * attempt's agent, and what they would have decided is left for `resume`.
   */
  readonly signal?: AbortSignal;
}

/** What an attempt needs besides: a driver's live view, and where it keeps and waits for what. */
export interface WorkerContext extends EngineContext {
  /** Each chunk of agent output, for a live view. */
  readonly onOutput?: (item: string, chunk: Buffer) => void;
  /**
   * The ref the work of an attempt that did not finish ends up on, as its outcome says: the local
   * ref it is kept at (default), or in a work job on GitHub the branch the publish job keeps it on.
   */
  readonly keptRef?: (kept: { readonly item: string; readonly attempt: number }) => string;
  /**
   * naruto's own value of a ref of its, where the driver keeps one (the local tamper record's
   * ledger): the queue head an attempt starts from, without reading the ref. Null: unknown.
   */
  readonly expectedRef?: (ref: string) => string | null;
  /**
   * Takes work the attempt need not wait for (deleting its work directory) where the driver
   * waits for it before it ends; without it, the attempt waits.
   */
  readonly inBackground?: (work: Promise<void>) => void;
}

/**
 * A fresh work directory at `commit` for `use`, removed afterwards whatever happened: for the
 * planner, the review agent and queue verification, whose changes are never kept.
 */
export async function withWorkDir<T>(
  ctx: Pick<EngineContext, "git" | "repoDir" | "workRoot">,
  at: { mission: string; label: string; purpose: string; attempt: number | null; commit: string },
  use: (dir: WorkDir) => Promise<T>,
): Promise<T> {
  const repo = await workRepo(ctx.git, ctx.repoDir);
  const dir = await createWorkDir({
    git: ctx.git,
    repo,
    folder: missionWorkFolder(ctx.workRoot, repo, at.mission),
    label: at.label,
    commit: at.commit,
    record: { mission: at.mission, purpose: at.purpose, attempt: at.attempt },
  });
  try {
    return await use(dir);
  } finally {
    await removeWorkDir(dir);
  }
}
