/**
 * Where a repository keeps what naruto reads and writes beside git — its common git directory
 * (naruto's records, the loose refs the store reads), its object store (the work directories'
 * alternates) — and its object format: one `git rev-parse`, asked once per repository and
 * process, for every module that needs one of them (a mission asked it up to five times).
 */
import { gitText, type Git } from "./run-git.ts";

export interface RepoLayout {
  /** The common git directory, absolute (git's real path of it). */
  readonly commonDir: string;
  /** The object store, absolute (honours `GIT_OBJECT_DIRECTORY`). */
  readonly objectsDir: string;
  /** `sha1` or `sha256`. */
  readonly format: string;
  readonly bare: boolean;
}

/**
 * `read` asked once per repository and process: later calls share the first answer, and a failed
 * answer is asked again next time.
 */
export function perRepository<T>(read: (git: Git, repoDir: string) => Promise<T>): (git: Git, repoDir: string) => Promise<T> {
  const answers = new Map<string, Promise<T>>();
  return (git, repoDir) => {
    let found = answers.get(repoDir);
    if (found === undefined) {
      found = read(git, repoDir);
      found.catch(() => answers.delete(repoDir));
      answers.set(repoDir, found);
    }
    return found;
  };
}

/** The layout of the repository at `repoDir` (asked once; a failed answer is asked again next time). */
export const repoLayout: (git: Git, repoDir: string) => Promise<RepoLayout> = perRepository(readLayout);

async function readLayout(git: Git, repoDir: string): Promise<RepoLayout> {
  const out = await gitText(git, {
    args: ["rev-parse", "--path-format=absolute", "--git-common-dir", "--git-path", "objects", "--show-object-format", "--is-bare-repository"],
    cwd: repoDir,
  });
  const [commonDir = "", objectsDir = "", format = "sha1", bare = "false"] = out.split("\n");
  return { commonDir, objectsDir, format, bare: bare === "true" };
}
