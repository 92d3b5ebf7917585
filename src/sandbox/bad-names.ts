/**
 * Names in a work directory that git will not take into a tree, found before naruto's `git add`
 * meets them: a `.git` below the top (a nested repository or a planted git directory: git skips
 * it without a word), `.GIT`, `git~1`, `.git.` and the other spellings of `.git` (git's index
 * refuses them, and `git add -A` fails on the first). Each is refused by name (docs/architecture.md:
 * nothing is dropped silently) and left out of the snapshot. Ignored files are not the agent's
 * work and are not looked at; neither are the checkouts of the submodules it staged.
 */
import { open, readdir } from "node:fs/promises";
import { nameProblem, type NameProblem } from "../gate/index.ts";
import type { Git } from "../git/index.ts";
import { onDisk, type RawPath } from "./agent-index.ts";
import { viewCall, type GitView } from "./git-view.ts";
import { seedIndex, type WorkDir } from "./work-dir.ts";

export interface BadName extends NameProblem {
  /** Relative to the work directory, raw bytes as latin1. */
  readonly path: RawPath;
  /**
   * What `git add` must leave alone: the name itself, or for a `.git` its folder (git takes a
   * folder holding a `.git` for a nested repository, and fails on one without a commit).
   */
  readonly exclude: RawPath;
}

const NESTED_GIT: NameProblem = {
  rule: "dotgit",
  detail: "a git directory inside the work (a nested repository, or one planted): git never takes it; a submodule is staged as a gitlink",
};

// Folders read at once; a work directory has thousands.
const PARALLEL = 16;

/**
 * Walks the work directory (its own top `.git` aside, and folders listed in `skip`). Most walks
 * find nothing, and git is not asked anything. A walk that finds a bad name, or that meets far
 * more entries than the checkout holds (an agent's `node_modules`, say), is done again without
 * the folders git ignores (one `git ls-files`): ignored files are not the agent's work. One
 * `git check-ignore` then judges the bad names found.
 */
export async function findBadNames(git: Git, view: GitView, dir: WorkDir, skip: ReadonlySet<RawPath>): Promise<BadName[]> {
  const quick = await walk(dir, skip, WALK_SPARE + 2 * (await checkedOutEntries(dir)));
  if (quick !== null && quick.length === 0) return [];
  const ignored = await git(viewCall(view, ["--no-optional-locks", "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"]));
  const pruned = new Set([...skip, ...ignored.stdout.toString("latin1").split("\0").filter((p) => p !== "").map((p) => p.replace(/\/$/, ""))]);
  const found = (await walk(dir, pruned, Infinity)) ?? [];
  if (found.length === 0) return [];
  // A bad name inside an ignored folder that holds tracked files: git's ignore rules decide.
  // check-ignore refuses the view's literal pathspecs; `./` keeps a leading `:` from reading as magic.
  const call = viewCall(view, ["check-ignore", "-z", "--stdin"], { input: Buffer.from(found.map((f) => `./${f.path}\0`).join(""), "latin1"), okCodes: [1] });
  const checked = await git({ ...call, env: { ...call.env, GIT_LITERAL_PATHSPECS: "0" } });
  const alsoIgnored = new Set(checked.stdout.toString("latin1").split("\0"));
  return found.filter((f) => !alsoIgnored.has(`./${f.path}`)).sort((a, b) => (a.path < b.path ? -1 : 1));
}

// Entries a walk may meet beyond twice the checkout's before git is asked what it ignores.
const WALK_SPARE = 10_000;

/** The bad names under the work directory, or null when it holds more than `budget` entries. */
async function walk(dir: WorkDir, pruned: ReadonlySet<RawPath>, budget: number): Promise<BadName[] | null> {
  const found: BadName[] = [];
  let seen = 0;
  let level: RawPath[] = [""];
  while (level.length > 0) {
    const next: RawPath[] = [];
    for (let i = 0; i < level.length; i += PARALLEL) {
      await Promise.all(
        level.slice(i, i + PARALLEL).map(async (folder) => {
          const entries = await readdir(folder === "" ? Buffer.from(dir.path) : onDisk(dir, folder), { withFileTypes: true, encoding: "buffer" }).catch(() => []);
          seen += entries.length;
          for (const entry of entries) {
            const name = entry.name.toString("latin1");
            if (folder === "" && name === ".git") continue;
            const path = folder === "" ? name : `${folder}/${name}`;
            if (pruned.has(path)) continue;
            const problem = name === ".git" ? NESTED_GIT : nameProblem(entry.name);
            if (problem !== null) found.push({ path, exclude: name === ".git" ? folder : path, ...problem });
            else if (entry.isDirectory()) next.push(path);
          }
        }),
      );
      if (seen > budget) return null;
    }
    level = next;
  }
  return found;
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
