/**
 * naruto's own view of a work directory (docs/architecture.md): git is pointed at the work directory
 * explicitly, with a git directory naruto made itself, so that nothing an agent left there can
 * steer naruto's git. No system or global config (no `core.fsmonitor`, aliases or filter
 * drivers of anyone's), no hooks, no excludes file, and attributes that switch off every
 * conversion an in-tree `.gitattributes` could ask for (`$GIT_DIR/info/attributes` outranks
 * every `.gitattributes`): files are read and written byte for byte, and `diff` decides
 * "binary" by content, not by a `-diff` an agent wrote. Objects come from the repository's own
 * object store, and go there, or, for a view with a quarantine, to the quarantine first
 * (quarantine.ts).
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { GitCall } from "../git/index.ts";

/** The object store of the repository naruto works for. */
export interface RepoObjects {
  /** The repository's common git directory (absolute, real path). */
  readonly commonDir: string;
  /** Its object folder and the folders it borrows objects from (`objects/info/alternates`). */
  readonly objects: readonly string[];
  readonly format: "sha1" | "sha256";
}

/**
 * Every attribute that changes bytes on the way in or out of git, or that steers `diff`, reset
 * to git's plain behaviour for every path. `!attr` is "unspecified": `diff` and `merge` then
 * look at the content. Written as `info/attributes` of every git directory naruto uses on a
 * work directory, and of the throwaway repository an agent finds there, so that both read the
 * same bytes.
 */
export const NEUTRAL_ATTRIBUTES = "* -text !eol -filter -ident -working-tree-encoding !diff !merge !whitespace\n";

/** Config for every git naruto runs on a work directory, on top of the defaults. */
const HARDENED = [
  "-c",
  "core.fsmonitor=false",
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "core.excludesFile=/dev/null",
  "-c",
  "core.untrackedCache=false",
  "-c",
  "core.symlinks=true",
  "-c",
  "core.fileMode=true",
  "-c",
  "core.ignoreCase=false",
  "-c",
  "core.autocrlf=false",
  "-c",
  "core.safecrlf=false",
  "-c",
  "core.sparseCheckout=false",
  "-c",
  "core.splitIndex=false",
  "-c",
  "index.sparse=false",
  "-c",
  "gc.auto=0",
  "-c",
  "maintenance.auto=false",
  "-c",
  "protocol.allow=never",
];

/** Environment that keeps every config file and attributes file but naruto's own out. */
const CLEAN_ENV = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_ATTR_NOSYSTEM: "1",
  GIT_LITERAL_PATHSPECS: "1",
  GIT_NO_REPLACE_OBJECTS: "1",
  GIT_TERMINAL_PROMPT: "0",
} as const;

export interface GitView {
  /** naruto's git directory (it holds no config of anyone's and no objects of its own). */
  readonly gitDir: string;
  readonly workTree: string;
  readonly index: string;
  readonly objects: RepoObjects;
  /**
   * Where the objects it writes go (`GIT_OBJECT_DIRECTORY`), the store then only read (as an
   * alternate): a quarantine, whose objects reach the store when the checkpoint is accepted.
   * Absent: they go to the store.
   */
  readonly incoming?: string;
}

/** A git call in the view: the args after `git`, with the view's directories, config and environment. */
export function viewCall(
  view: GitView,
  args: readonly string[],
  extra: { input?: string | Buffer; okCodes?: readonly number[]; index?: string } = {},
): GitCall {
  const [objects, ...alternates] = view.incoming === undefined ? view.objects.objects : [view.incoming, ...view.objects.objects];
  return {
    args: [...HARDENED, ...args],
    cwd: view.workTree,
    env: {
      ...CLEAN_ENV,
      GIT_DIR: view.gitDir,
      GIT_WORK_TREE: view.workTree,
      GIT_INDEX_FILE: extra.index ?? view.index,
      GIT_OBJECT_DIRECTORY: objects ?? join(view.objects.commonDir, "objects"),
      ...(alternates.length > 0 ? { GIT_ALTERNATE_OBJECT_DIRECTORIES: alternates.join(":") } : {}),
    },
    ...(extra.input !== undefined ? { input: extra.input } : {}),
    ...(extra.okCodes ? { okCodes: extra.okCodes } : {}),
  };
}

/** The config of a git directory naruto writes: the object format of the repository, nothing else. */
export function repoConfig(format: RepoObjects["format"], options: { bare: boolean; checkStat?: "minimal" }): string {
  const checkStat = options.checkStat === undefined ? "" : `\tcheckStat = ${options.checkStat}\n`;
  const core = `[core]\n\trepositoryformatversion = ${format === "sha256" ? 1 : 0}\n\tbare = ${options.bare}\n\tfilemode = true\n\tlogallrefupdates = false\n${checkStat}`;
  return format === "sha256" ? `${core}[extensions]\n\tobjectformat = sha256\n` : core;
}

/**
 * Makes (afresh: whatever was there is removed first) the git directory of a view: `HEAD`, an
 * empty `refs/`, the neutral attributes and a config of the right object format. Its objects
 * are the repository's (given in the environment of each call).
 */
export async function makeViewGitDir(gitDir: string, format: RepoObjects["format"]): Promise<void> {
  await rm(gitDir, { recursive: true, force: true });
  await mkdir(join(gitDir, "refs"), { recursive: true, mode: 0o700 });
  await mkdir(join(gitDir, "info"), { recursive: true });
  await writeFile(join(gitDir, "HEAD"), "ref: refs/heads/naruto-view\n");
  await writeFile(join(gitDir, "config"), repoConfig(format, { bare: false }));
  await writeFile(join(gitDir, "info", "attributes"), NEUTRAL_ATTRIBUTES);
}
