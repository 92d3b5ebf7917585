/**
 * Standalone work directories (docs/architecture.md). An agent never works in a `git worktree` of the
 * user's repository, nor anywhere below it: agents walk up the directories for `.env`,
 * `CLAUDE.md`, `.claude/`, and Claude Code refuses to edit anything under a `.git/`. Each
 * attempt, the planner, the review agent and every queue verification get a folder of their own
 * under a per-user cache:
 *
 * ```
 * <work root>/<repository key>/<mission>/<label>-<random>/   (0700)
 *   work/     the commit's files, and a throwaway repository in work/.git: that one commit
 *             (shallow), no refs, hooks or config of the user's; its objects borrowed read-only
 *             from objects/, never from the user's store
 *   objects/  the start commit's objects: links to the mission's packs of it (start-objects.ts)
 *   home/     a private HOME
 *   tmp/      a private TMPDIR (without the sandbox; with it, /tmp is a private tmpfs)
 *   io/       naruto's own files of each run, read-only in the sandbox (run-files.ts): the
 *             prompt, and the result and plan files the command writes
 *   naruto/   naruto's own: the index it checked out with, its git directory; never in the sandbox
 * ```
 *
 * The mission's folder can be crossed but not listed (mode 0300), so that an agent running
 * without the sandbox does not find its siblings by listing `..`; it also holds the packs of the
 * mission's start commits (`.objects/`). Directories are created side by
 * side: nothing here takes a lock of the user's repository. Where the folders are: work-root.ts;
 * their removal: remove-work-dir.ts.
 */
import { randomBytes } from "node:crypto";
import { chmod, copyFile, mkdir, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Git } from "../git/index.ts";
import { NEUTRAL_ATTRIBUTES, repoConfig, viewCall, type GitView, type RepoObjects } from "./git-view.ts";
import { removeWorkDir } from "./remove-work-dir.ts";
import { linkStartObjects, startObjects } from "./start-objects.ts";
import type { WorkRepo } from "./work-root.ts";

/** One work directory, as plain data (JSON-safe: a later `naruto resume` reads it back). */
export interface WorkDir {
  readonly root: string;
  /** The agent's working directory: the start commit's files and the throwaway repository. */
  readonly path: string;
  readonly home: string;
  readonly tmp: string;
  readonly io: string;
  /** naruto's own folder: not bound into the sandbox. */
  readonly private: string;
  /** The commit whose files `path` holds. */
  readonly start: string;
  /** The repository's object store: what naruto's own view of the directory reads (git-view.ts). */
  readonly objects: RepoObjects;
  /**
   * The object folders the agent's repository reads (its alternates, shown read-only in the
   * sandbox): the start commit's objects only (start-objects.ts), in the directory's own `objects/`.
   */
  readonly startObjects: readonly string[];
  /** What the folder is for, e.g. `users-api.2`, `planner.1`, `verify`. */
  readonly label: string;
}

/** What naruto writes beside a work directory to find it again after a killed run. */
export interface WorkDirRecord {
  readonly schema: "naruto.work-dir/v1";
  readonly mission: string;
  /** The item, or `planner` / `review` / `verify`. */
  readonly purpose: string;
  readonly attempt: number | null;
  readonly dir: WorkDir;
}

const LABEL = /^[a-z0-9][a-z0-9._-]{0,80}$/;

/** The folders of a work directory rooted at `root` (see the header); nothing is created. */
export function workDirLayout(root: string, of: Pick<WorkDir, "start" | "objects" | "startObjects" | "label">): WorkDir {
  return { root, path: join(root, "work"), home: join(root, "home"), tmp: join(root, "tmp"), io: join(root, "io"), private: join(root, "naruto"), ...of };
}

/** Creates a work directory's folders, private to naruto's user; its root must exist. */
export async function makeWorkDirFolders(dir: WorkDir): Promise<void> {
  await allDone([dir.path, dir.home, dir.tmp, dir.io, dir.private].map((d) => mkdir(d, { mode: 0o700 })));
  // naruto's files for the command (run-files.ts): readable by the user it runs as, who need not
  // be naruto's (bwrap.ts); the work directory's own folder keeps everyone else out.
  await chmod(dir.io, 0o755);
}

/** Waits for all of `steps` (made side by side), then fails with the first failure: none still writes into a directory being removed. */
async function allDone(steps: readonly Promise<unknown>[]): Promise<void> {
  const failed = (await Promise.allSettled(steps)).find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
}

/**
 * Creates a work directory holding `commit`'s files under `folder` (see {@link missionWorkFolder}).
 * A few files written directly and one `git read-tree -u`: no lock of the user's repository, so
 * any number are made at once.
 */
export async function createWorkDir(input: {
  git: Git;
  repo: WorkRepo;
  folder: string;
  label: string;
  commit: string;
  record: Omit<WorkDirRecord, "schema" | "dir">;
}): Promise<WorkDir> {
  if (!LABEL.test(input.label)) throw new RangeError(`work directory label ${JSON.stringify(input.label)}: use [a-z0-9._-]`);
  if (!/^[0-9a-f]{40,64}$/.test(input.commit)) throw new RangeError(`${JSON.stringify(input.commit)} is not a full commit id`);
  await mkdir(input.folder, { recursive: true, mode: 0o700 });
  // Crossable, not listable: a sibling's name cannot be read from `..` (see the header).
  await chmod(input.folder, 0o300);
  const root = join(input.folder, `${input.label}-${randomBytes(6).toString("hex")}`);
  await mkdir(root, { mode: 0o700 });
  // The start commit's pack is made (or found) while the files are checked out from the store.
  const shown = startObjects({ git: input.git, repoDir: input.repo.repoDir, folder: input.folder, commit: input.commit });
  shown.catch(() => undefined);
  let dir = workDirLayout(root, { start: input.commit, objects: input.repo.objects, startObjects: [], label: input.label });
  try {
    await makeWorkDirFolders(dir);
    await makeThrowawayRepo(dir);
    // The agent's repository gets the index of the checkout; naruto keeps its own copy of it,
    // whose stat data lets it read back only what changed (see snapshot.ts).
    const agentGit = join(dir.path, ".git");
    const view: GitView = { gitDir: agentGit, workTree: dir.path, index: join(agentGit, "index"), objects: dir.objects };
    const checkedOut = input.git(viewCall(view, ["read-tree", "--reset", "-u", input.commit])).then(() => copyIndex(view.index, seedIndex(dir)));
    const objects = join(root, "objects");
    await allDone([checkedOut, shown.then((folders) => linkStartObjects(folders, objects))]);
    dir = { ...dir, startObjects: [objects] };
    const record: WorkDirRecord = { schema: "naruto.work-dir/v1", ...input.record, dir };
    await allDone([
      writeFile(join(dir.private, "work-dir.json"), `${JSON.stringify(record, null, 2)}\n`),
      writeFile(join(agentGit, "objects", "info", "alternates"), dir.startObjects.map((o) => `${o}\n`).join("")),
    ]);
  } catch (error) {
    await removeWorkDir(dir);
    throw error;
  }
  return dir;
}

/**
 * Copies an index file with its modification time (never later than the original's). Git trusts
 * an entry's stat data only when the entry is older than its index file; an entry from the same
 * second as the index is read again ("racy git"). A copy stamped later would make a same-size
 * edit made in the second of the checkout invisible, and the agent's work would be lost.
 */
export async function copyIndex(from: string, to: string): Promise<void> {
  await copyFile(from, to);
  const { mtimeNs, atimeNs } = await stat(from, { bigint: true });
  // Microseconds, rounded down and one less: a float's rounding can then never make it later.
  const seconds = (ns: bigint) => Number(ns / 1000n - 1n) / 1e6;
  await utimes(to, seconds(atimeNs), seconds(mtimeNs));
}

/** Where naruto keeps the index it checked the work directory out with. */
export function seedIndex(dir: Pick<WorkDir, "private">): string {
  return join(dir.private, "seed-index");
}

/**
 * The agent's repository: HEAD detached at the start commit, which is also the shallow boundary
 * (so it is the one commit the agent sees), no refs, no hooks, a config with nothing in it but
 * the object format and `checkStat`, objects borrowed from the start commit's pack (read-only in
 * the sandbox; never the user's store, see start-objects.ts).
 */
async function makeThrowawayRepo(dir: WorkDir): Promise<void> {
  const g = join(dir.path, ".git");
  // Side by side: nothing reads the repository before it is whole (the checkout comes after).
  await allDone(["objects/info", "objects/pack", "refs/heads", "refs/tags", "info"].map((d) => mkdir(join(g, d), { recursive: true })));
  await allDone([
    ...["HEAD", "shallow"].map((name) => writeFile(join(g, name), `${dir.start}\n`)),
    // The index naruto checked out with records naruto's uid; as root, the sandbox runs the agent
    // as another uid (src/sandbox/bwrap.ts), whose git would then take every file for changed
    // without reading it (`git apply --index`: "does not match index"). Size and mtime decide.
    writeFile(join(g, "config"), repoConfig(dir.objects.format, { bare: false, checkStat: "minimal" })),
    writeFile(join(g, "info", "attributes"), NEUTRAL_ATTRIBUTES),
    writeFile(join(g, "info", "exclude"), ""),
  ]);
}
