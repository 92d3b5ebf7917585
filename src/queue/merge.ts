/**
 * The queue's slow path: a real three-way merge of one checkpoint onto the candidate, without a
 * work tree. Two engines, never a side-picking strategy (`-X ours`/`-X theirs`):
 *
 * - `merge-tree`: `git merge-tree --write-tree` with the checkpoint's base as merge base. The
 *   `--merge-base` option arrived in git 2.40; it is detected by trying it. Without it, git
 *   computes the merge base itself, which is only the same merge when the checkpoint's base is
 *   the one merge base of the two sides; otherwise this engine falls back to `apply-3way`.
 * - `apply-3way`: a temporary index (`GIT_INDEX_FILE`) holding the candidate, the checkpoint's
 *   patch applied with `git apply --cached --3way`, `write-tree`. Exit 1 is a conflict (with the
 *   unmerged paths from the index); `apply --check` is not trusted for that.
 */
import { rm } from "node:fs/promises";
import type { Git } from "../git/index.ts";
import { parseUnmergedPaths } from "../git/index.ts";
import { scratchPath } from "./scratch.ts";
import type { RawPath } from "../git/index.ts";

export type MergeEngine = "merge-tree" | "apply-3way";
export type MergeEngineChoice = MergeEngine | "auto";

export type MergeOutcome =
  | { readonly clean: true; readonly tree: string; readonly engine: MergeEngine }
  | { readonly clean: false; readonly paths: readonly RawPath[]; readonly engine: MergeEngine };

export interface MergeRequest {
  readonly git: Git;
  readonly repoDir: string;
  readonly engine: MergeEngineChoice;
  /** The checkpoint's base (its parent). */
  readonly base: string;
  /** The candidate commit the checkpoint goes onto. */
  readonly ours: string;
  /** The checkpoint commit. */
  readonly theirs: string;
}

const probes = new WeakMap<Git, Promise<boolean>>();

/** Whether this git's `merge-tree --write-tree` takes `--merge-base` (probed once per runner). */
export function supportsMergeBase(git: Git, repoDir: string, commit: string): Promise<boolean> {
  let probe = probes.get(git);
  if (!probe) {
    // A merge of a commit with itself: exit 0 where the option exists, a usage error elsewhere.
    probe = git({
      args: ["merge-tree", "--write-tree", `--merge-base=${commit}`, commit, commit],
      cwd: repoDir,
      okCodes: [1, 128, 129],
    }).then((out) => out.code === 0);
    probes.set(git, probe);
  }
  return probe;
}

export async function mergeCheckpoint(req: MergeRequest): Promise<MergeOutcome> {
  if (req.engine === "apply-3way") return applyThreeWay(req);
  const explicitBase = await supportsMergeBase(req.git, req.repoDir, req.ours);
  if (req.engine === "auto" && !explicitBase) return applyThreeWay(req);
  if (!explicitBase && !(await baseIsOnlyMergeBase(req))) return applyThreeWay(req);
  const args = ["merge-tree", "--write-tree", "-z", "--name-only", "--no-messages"];
  if (explicitBase) args.push(`--merge-base=${req.base}`);
  const out = await req.git({ args: [...args, req.ours, req.theirs], cwd: req.repoDir, okCodes: [1] });
  // `<tree>\0` then, on conflict, `<path>\0…` and an empty field before the (suppressed) messages.
  const [tree = "", ...rest] = out.stdout.toString("latin1").split("\0");
  if (out.code === 0) return { clean: true, tree, engine: "merge-tree" };
  const end = rest.indexOf("");
  return { clean: false, paths: parseUnmergedPaths((end < 0 ? rest : rest.slice(0, end)).join("\0")), engine: "merge-tree" };
}

async function baseIsOnlyMergeBase(req: MergeRequest): Promise<boolean> {
  const out = await req.git({ args: ["merge-base", "--all", req.ours, req.theirs], cwd: req.repoDir, okCodes: [1] });
  const bases = out.stdout
    .toString("latin1")
    .split("\n")
    .filter((l) => l !== "");
  return bases.length === 1 && bases[0] === req.base;
}

/** Settings that keep the temporary index a plain, full index whatever the user configured. */
const PLAIN_INDEX = ["-c", "index.sparse=false", "-c", "core.sparseCheckout=false", "-c", "core.splitIndex=false"];

async function applyThreeWay(req: MergeRequest): Promise<MergeOutcome> {
  const { git, repoDir } = req;
  const index = await scratchPath(git, repoDir, "tmp", "index");
  const env = { GIT_INDEX_FILE: index };
  try {
    await git({ args: [...PLAIN_INDEX, "read-tree", req.ours], cwd: repoDir, env });
    const patch = await git({
      args: [
        "diff-tree",
        "-p",
        "--binary",
        "--full-index",
        "--no-renames",
        "--no-ext-diff",
        "--no-textconv",
        "--src-prefix=a/",
        "--dst-prefix=b/",
        req.base,
        req.theirs,
      ],
      cwd: repoDir,
    });
    const applied = await git({
      args: [...PLAIN_INDEX, "apply", "--cached", "--3way", "--whitespace=nowarn", "-p1", "-"],
      cwd: repoDir,
      env,
      input: patch.stdout,
      // 1: a three-way merge left conflicts. 128: the patch could not go in at all (e.g. a file
      // where the patch needs a directory). Both mean "does not merge cleanly"; the patch itself
      // is git's own diff, so it is never malformed.
      okCodes: [1, 128],
    });
    if (applied.code !== 0) {
      const unmerged = await git({ args: [...PLAIN_INDEX, "ls-files", "-u", "-z"], cwd: repoDir, env });
      return { clean: false, paths: parseUnmergedPaths(unmerged.stdout.toString("latin1")), engine: "apply-3way" };
    }
    const tree = await git({ args: [...PLAIN_INDEX, "write-tree"], cwd: repoDir, env });
    return { clean: true, tree: tree.stdout.toString("latin1").trim(), engine: "apply-3way" };
  } finally {
    await rm(index, { force: true });
    await rm(`${index}.lock`, { force: true });
  }
}
