/**
 * What `naruto init`, `upgrade` and `doctor` read from where they run: the repository's top
 * folder, the GitHub repository its `origin` names, its default branch as git knows it, this
 * naruto's version and workflow template.
 */
import { constants } from "node:fs";
import { access, readFile } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { createGit, gitText, type Git } from "../git/index.ts";
import { parseRemoteUrl, parseRepoFlag, type GitHubRepository } from "../setup/index.ts";
import { UsageError } from "./errors.ts";
import type { CliIO } from "./io.ts";
import { packageRoot } from "./package-root.ts";

export interface SetupContext {
  readonly git: Git;
  readonly root: string;
  readonly repo: GitHubRepository | null;
  readonly defaultBranch: string | null;
}

export async function setupContext(io: CliIO, repoFlag: string | undefined): Promise<SetupContext> {
  const git = createGit({ env: io.env, sessions: false });
  const root = await gitText(git, { args: ["rev-parse", "--show-toplevel"], cwd: io.cwd }).catch(() => null);
  if (root === null) throw new UsageError(`${io.cwd} is not inside a git repository: run naruto init in a clone of the repository to set up`);
  const remote = await gitText(git, { args: ["remote", "get-url", "origin"], cwd: root }).catch(() => null);
  const fromRemote = remote === null ? null : parseRemoteUrl(remote);
  let repo = fromRemote;
  if (repoFlag !== undefined) {
    repo = parseRepoFlag(repoFlag, fromRemote?.host ?? "github.com");
    if (repo === null) throw new UsageError(`--repo ${repoFlag}: expected OWNER/NAME`);
  }
  // origin/HEAD is what the clone was told the default branch is; else the branch checked out.
  const originHead = await gitText(git, { args: ["symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD"], cwd: root }).catch(() => null);
  const current = await gitText(git, { args: ["symbolic-ref", "--quiet", "--short", "HEAD"], cwd: root }).catch(() => null);
  const defaultBranch = originHead?.replace(/^origin\//, "") ?? current;
  return { git, root, repo, defaultBranch };
}

export async function readIfThere(path: string): Promise<string | null> {
  return readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
}

/** This naruto's version (package.json) and workflow template (templates/naruto.yml). */
export async function narutoTemplate(): Promise<{ version: string; template: string; appManifest: string }> {
  const root = packageRoot();
  const pkg = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as { version: string };
  return {
    version: pkg.version,
    template: await readFile(join(root, "templates", "naruto.yml"), "utf8"),
    appManifest: await readFile(join(root, "app.yml"), "utf8"),
  };
}

/** Whether `program` is an executable file in a folder of PATH. */
export async function onPath(env: CliIO["env"], program: string): Promise<boolean> {
  for (const dir of (env["PATH"] ?? "").split(delimiter)) {
    if (dir === "") continue;
    if (
      await access(join(dir, program), constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return true;
  }
  return false;
}
