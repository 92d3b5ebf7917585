/**
 * What in a work directory git must not be given, found before naruto's `git add` meets it
 * (README, "Security model": the work tree is walked with `lstat` before anything is hashed):
 *
 * - names git will not take into a tree: a `.git` below the top (a nested repository or a planted
 *   git directory: git skips it without a word), `.GIT`, `git~1`, `.git.` and the other spellings
 *   of `.git` (git's index refuses them, and `git add -A` fails on the first);
 * - named pipes, sockets and devices (`special_file`): git skips them without a word, and naruto
 *   never opens one (a pipe would block it). git itself opens a folder's `.gitignore` and
 *   `.gitattributes` by name, and would wait for ever on a pipe there: such a one is removed
 *   before any git reads the work tree ({@link walkWorkTree}), as well as refused;
 * - files over `limits.max_file_size` (`file_too_large`), by their size on disk: hashing one
 *   would cost naruto's CPU (a 3 GiB sparse file holds nothing on disk and reads as 3 GiB) and
 *   its objects would grow the store for an attempt the gate refuses anyway. A file the start
 *   commit already holds, unchanged, is not the agent's and stays.
 *
 * Each is refused by name and rule and left out of the snapshot (nothing is dropped silently).
 * Ignored files are not the agent's work and are not looked at; neither are the checkouts of the
 * submodules it staged.
 */
import { lstatSync, type Dirent } from "node:fs";
import { open, readdir, unlink } from "node:fs/promises";
import { nameProblem, type NameProblem } from "../gate/index.ts";
import type { Git } from "../git/index.ts";
import { onDisk, type RawPath } from "./agent-index.ts";
import { viewCall, type GitView } from "./git-view.ts";
import { seedIndex, type WorkDir } from "./work-dir.ts";

export interface RefusedEntry {
  /** Relative to the work directory, raw bytes as latin1. */
  readonly path: RawPath;
  /**
   * What `git add` must leave alone: the entry itself, or for a `.git` its folder (git takes a
   * folder holding a `.git` for a nested repository, and fails on one without a commit).
   */
  readonly exclude: RawPath;
  readonly rule: NameProblem["rule"] | "special_file" | "file_too_large";
  readonly detail: string;
}

const NESTED_GIT: NameProblem = {
  rule: "dotgit",
  detail: "a git directory inside the work (a nested repository, or one planted): git never takes it; a submodule is staged as a gitlink",
};

// Folders read at once; a work directory has thousands.
const PARALLEL = 16;

/** What the first walk found, before any git read the work tree. */
export interface WorkTreeWalk {
  /** What is refused, or null when the tree holds far more entries than its checkout (see below). */
  readonly quick: readonly RefusedEntry[] | null;
  /** Special `.gitignore` and `.gitattributes` files, removed: git would have blocked on them. */
  readonly defused: readonly RefusedEntry[];
}

/**
 * The first walk of the work directory (its own top `.git` aside), in Node alone: it must come
 * before any git reads the tree. Beyond far more entries than the checkout holds (an agent's
 * `node_modules`, say) it only looks for what git would block on, and leaves the rest to
 * {@link findRefusedEntries}.
 */
export async function walkWorkTree(dir: WorkDir, options: { maxFileSize: number }): Promise<WorkTreeWalk> {
  const defused: RefusedEntry[] = [];
  const quick = await walk(dir, new Set(), options.maxFileSize, WALK_SPARE + 2 * (await checkedOutEntries(dir)), defused);
  return { quick, defused };
}

/**
 * Judges what the first walk found (folders listed in `skip`, the submodules' checkouts, aside).
 * Most walks find nothing, and git is not asked anything. A walk that found something, or that
 * met far more entries than the checkout holds, is done again without the folders git ignores
 * (one `git ls-files`): ignored files are not the agent's work. One `git check-ignore` then
 * judges what was found; a file over the limit is asked about once more (`ls-files`), so that
 * one the start commit holds, unchanged, stays.
 */
export async function findRefusedEntries(
  git: Git,
  view: GitView,
  dir: WorkDir,
  walked: WorkTreeWalk,
  options: { skip: ReadonlySet<RawPath>; maxFileSize: number },
): Promise<RefusedEntry[]> {
  const unchanged = unchangedTracked(git, view);
  const outside = (f: RefusedEntry) => ![...options.skip].some((s) => f.path === s || f.path.startsWith(`${s}/`));
  const defused = walked.defused.filter(outside);
  const quick = walked.quick === null ? null : await unchanged.without(walked.quick.filter(outside));
  if (quick !== null && quick.length === 0 && defused.length === 0) return [];
  const ignored = await git(viewCall(view, ["--no-optional-locks", "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"]));
  const pruned = new Set([
    ...options.skip,
    ...ignored.stdout
      .toString("latin1")
      .split("\0")
      .filter((p) => p !== "")
      .map((p) => p.replace(/\/$/, "")),
  ]);
  const found = [...(await unchanged.without((await walk(dir, pruned, options.maxFileSize, Infinity, [])) ?? [])), ...defused];
  if (found.length === 0) return [];
  // Something refused inside an ignored folder that holds tracked files: git's ignore rules decide.
  // check-ignore refuses the view's literal pathspecs; `./` keeps a leading `:` from reading as magic.
  const call = viewCall(view, ["check-ignore", "-z", "--stdin"], { input: Buffer.from(found.map((f) => `./${f.path}\0`).join(""), "latin1"), okCodes: [1] });
  const checked = await git({ ...call, env: { ...call.env, GIT_LITERAL_PATHSPECS: "0" } });
  const alsoIgnored = new Set(checked.stdout.toString("latin1").split("\0"));
  return found.filter((f) => !alsoIgnored.has(`./${f.path}`)).sort((a, b) => (a.path < b.path ? -1 : 1));
}

/**
 * The named files (ignored ones the agent staged on purpose, which `git add -f` takes) that are
 * special or over the limit, by `lstat`; a file the start commit holds, unchanged, stays.
 */
export async function refusedFiles(
  git: Git,
  view: GitView,
  dir: WorkDir,
  options: { paths: readonly RawPath[]; maxFileSize: number },
): Promise<RefusedEntry[]> {
  const found: RefusedEntry[] = [];
  for (const path of options.paths) {
    const info = lstatSync(onDisk(dir, path), { throwIfNoEntry: false });
    if (info === undefined) continue;
    const problem = info.isFile() ? sizeProblem(info.size, options.maxFileSize) : info.isDirectory() || info.isSymbolicLink() ? null : specialProblem(info);
    if (problem !== null) found.push({ path, exclude: path, ...problem });
  }
  return unchangedTracked(git, view).without(found);
}

// Entries a walk may meet beyond twice the checkout's before git is asked what it ignores.
const WALK_SPARE = 10_000;

// The files git opens by name in every folder it walks.
const OPENED_BY_GIT = new Set([".gitignore", ".gitattributes"]);

/**
 * What is refused under the work directory, or null when it holds more than `budget` entries;
 * special files git opens by name are removed and put in `defused`, whatever the budget.
 */
async function walk(dir: WorkDir, pruned: ReadonlySet<RawPath>, maxFileSize: number, budget: number, defused: RefusedEntry[]): Promise<RefusedEntry[] | null> {
  const found: RefusedEntry[] = [];
  let seen = 0;
  let level: RawPath[] = [""];
  while (level.length > 0) {
    const next: RawPath[] = [];
    for (let i = 0; i < level.length; i += PARALLEL) {
      const light = seen > budget;
      await Promise.all(
        level.slice(i, i + PARALLEL).map(async (folder) => {
          const entries = await readdir(folder === "" ? Buffer.from(dir.path) : onDisk(dir, folder), { withFileTypes: true, encoding: "buffer" }).catch(
            () => [],
          );
          seen += entries.length;
          for (const entry of entries) {
            const name = entry.name.toString("latin1");
            if (folder === "" && name === ".git") continue;
            const path = folder === "" ? name : `${folder}/${name}`;
            if (pruned.has(path)) continue;
            if (OPENED_BY_GIT.has(name) && isSpecial(entry)) {
              await unlink(onDisk(dir, path)).catch(() => undefined);
              defused.push({
                path,
                exclude: path,
                rule: "special_file",
                detail: `${specialProblem(entry).detail}; git opens a ${name} by name and would wait on it for ever, so naruto removed it`,
              });
              continue;
            }
            // Past the budget only what git would block on is looked for, and git walks no nested repository.
            if (light && name === ".git") continue;
            const problem = light ? null : name === ".git" ? NESTED_GIT : (nameProblem(entry.name) ?? entryProblem(dir, path, entry, maxFileSize));
            if (problem !== null) found.push({ path, exclude: name === ".git" ? folder : path, ...problem });
            else if (entry.isDirectory()) next.push(path);
          }
        }),
      );
    }
    level = next;
  }
  return seen > budget ? null : found;
}

function isSpecial(entry: Dirent<Buffer>): boolean {
  return !entry.isFile() && !entry.isDirectory() && !entry.isSymbolicLink();
}

type Problem = Pick<RefusedEntry, "rule" | "detail">;

/**
 * A special file by its directory entry; a regular file over the limit by its `lstat`, which is
 * synchronous on purpose: a promise per file cost four times the CPU (about 30 µs against 7 µs
 * here), and a folder's files take well under a millisecond.
 */
function entryProblem(dir: WorkDir, path: RawPath, entry: Dirent<Buffer>, maxFileSize: number): Problem | null {
  if (entry.isDirectory() || entry.isSymbolicLink()) return null;
  if (!entry.isFile()) return specialProblem(entry);
  const info = lstatSync(onDisk(dir, path), { throwIfNoEntry: false });
  return info === undefined || !info.isFile() ? null : sizeProblem(info.size, maxFileSize);
}

function specialProblem(entry: Pick<Dirent, "isFIFO" | "isSocket" | "isBlockDevice" | "isCharacterDevice">): Problem {
  const what = entry.isFIFO()
    ? "a named pipe"
    : entry.isSocket()
      ? "a unix socket"
      : entry.isBlockDevice()
        ? "a block device"
        : entry.isCharacterDevice()
          ? "a character device"
          : "a special file";
  return { rule: "special_file", detail: `${what}: git cannot store it, and naruto does not open it` };
}

function sizeProblem(size: number, maxFileSize: number): Problem | null {
  if (size <= maxFileSize) return null;
  return { rule: "file_too_large", detail: `${size} bytes, more than limits.max_file_size (${maxFileSize} bytes); refused before anything read it` };
}

/**
 * Leaves out the files over the limit that the start commit holds and the agent did not change
 * (by the stat data of the index naruto checked out with: one `ls-files`, asked only when there
 * is such a file, and once).
 */
function unchangedTracked(git: Git, view: GitView): { without(found: readonly RefusedEntry[]): Promise<RefusedEntry[]> } {
  let asked: Promise<Set<RawPath>> | null = null;
  const ask = async () => {
    const { stdout } = await git(viewCall(view, ["--no-optional-locks", "ls-files", "-z", "-t", "--cached", "--modified"]));
    const tracked = new Set<RawPath>();
    const modified = new Set<RawPath>();
    for (const record of stdout.toString("latin1").split("\0")) {
      if (record.length < 3) continue;
      (record[0] === "C" ? modified : tracked).add(record.slice(2));
    }
    return new Set([...tracked].filter((p) => !modified.has(p)));
  };
  return {
    async without(found) {
      if (!found.some((f) => f.rule === "file_too_large")) return [...found];
      const unchanged = await (asked ??= ask());
      return found.filter((f) => f.rule !== "file_too_large" || !unchanged.has(f.path));
    },
  };
}

/** How many entries the index naruto checked the directory out with holds (its header says). */
async function checkedOutEntries(dir: WorkDir): Promise<number> {
  const file = await open(seedIndex(dir), "r").catch(() => null);
  if (file === null) return 0;
  try {
    const header = Buffer.alloc(12);
    const { bytesRead } = await file.read(header, 0, 12, 0);
    return bytesRead === 12 && header.toString("latin1", 0, 4) === "DIRC" ? header.readUInt32BE(8) : 0;
  } finally {
    await file.close();
  }
}
