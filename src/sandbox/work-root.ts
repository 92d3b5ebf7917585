/**
 * Where work directories are made (work-dir.ts): the per-user work root, each repository's key
 * in it and what its work directories borrow of it, and one mission's folder there — never
 * inside the repository, where agents would find the user's files by walking up.
 */
import { createHash } from "node:crypto";
import { readFile, realpath } from "node:fs/promises";
import { basename, isAbsolute, join, relative, resolve, sep } from "node:path";
import { perRepository, repoLayout } from "../git/index.ts";
import { gitText, type Git } from "../git/index.ts";
import type { RepoObjects } from "./git-view.ts";

/** The work root is inside the repository, where agents would find the user's files by walking up. */
export class WorkRootError extends Error {
  override readonly name = "WorkRootError";
}

/**
 * The per-user folder of work directories: `--workdir` or config `workdir` when given, else
 * `$XDG_CACHE_HOME/naruto`, else `~/.cache/naruto`. Relative paths and `~/` are resolved
 * against `cwd` and `HOME`.
 */
export function defaultWorkRoot(env: Readonly<Record<string, string | undefined>>, given: { override: string | null; cwd: string }): string {
  const home = env.HOME ?? "/tmp";
  const expand = (p: string) => (p === "~" ? home : p.startsWith("~/") ? join(home, p.slice(2)) : resolve(given.cwd, p));
  if (given.override !== null && given.override !== "") return expand(given.override);
  const cache = env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : join(home, ".cache");
  return join(cache, "naruto");
}

/** What a repository needs for work directories: its object store and its key in the work root. */
export interface WorkRepo {
  /** Where naruto runs the repository's own git (its long-running reads among them). */
  readonly repoDir: string;
  readonly objects: RepoObjects;
  /** `<name>-<hash of the git directory's real path>`: two repositories never share a folder. */
  readonly key: string;
  /** The repository's top level (its work tree), or null for a bare one. */
  readonly topLevel: string | null;
}

/** Reads (once per repository and process) what work directories of `repoDir` need. */
export const workRepo: (git: Git, repoDir: string) => Promise<WorkRepo> = perRepository(readWorkRepo);

async function readWorkRepo(git: Git, repoDir: string): Promise<WorkRepo> {
  const layout = await repoLayout(git, repoDir);
  const commonDir = await realpath(layout.commonDir);
  const own = await realpath(layout.objectsDir);
  const alternates = await readAlternates(own);
  const topLevel = layout.bare ? null : await realpath(await gitText(git, { args: ["rev-parse", "--show-toplevel"], cwd: repoDir })).catch(() => null);
  const name =
    basename(topLevel ?? commonDir)
      .replace(/[^A-Za-z0-9._-]+/g, "_")
      .replace(/^[._-]+/, "")
      .slice(0, 40) || "repo";
  const key = `${name}-${createHash("sha256").update(commonDir).digest("hex").slice(0, 12)}`;
  return { repoDir, objects: { commonDir, objects: [own, ...alternates], format: layout.format === "sha256" ? "sha256" : "sha1" }, key, topLevel };
}

/** The object folders a store borrows from, absolute (git resolves relative ones against the store). */
async function readAlternates(objects: string): Promise<string[]> {
  const text = await readFile(join(objects, "info", "alternates"), "utf8").catch(() => "");
  const found: string[] = [];
  for (const line of text.split("\n")) {
    const entry = line.trim();
    if (entry === "" || entry.startsWith("#")) continue;
    const path = await realpath(isAbsolute(entry) ? entry : resolve(objects, entry)).catch(() => null);
    if (path !== null) found.push(path, ...(await readAlternates(path)));
  }
  return found;
}

/**
 * The folder of one mission's work directories: `<root>/<repository key>/<mission>/`. Refuses a
 * root inside the repository (its work tree or git directory).
 */
export function missionWorkFolder(root: string, repo: WorkRepo, mission: string): string {
  const absolute = resolve(root);
  for (const inside of [repo.topLevel, repo.objects.commonDir]) {
    if (inside !== null && isWithin(absolute, inside)) {
      throw new WorkRootError(
        `the work folder ${absolute} is inside the repository (${inside}), where agents would find its files: choose a folder outside it with --workdir or \`workdir:\` in the config`,
      );
    }
  }
  return join(absolute, repo.key, mission);
}

function isWithin(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}
