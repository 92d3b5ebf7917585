/**
 * git over HTTPS with the job's token, without leaving it anywhere a later process could read
 * it from the checkout: the token travels to each fetch or push in that git's environment (the
 * `GIT_CONFIG_*` variables), never in `.git/config` (the jobs check out with
 * `persist-credentials: false`) and never on a command line (visible to every user in `ps`).
 */
import { BASIC_ENV_NAMES } from "../config/index.ts";
import { gitText, type Git } from "../git/index.ts";
import { WorkflowPermissionError, workflowRefusedPath } from "../github/index.ts";

export interface Remote {
  readonly url: string;
  /** Extra environment of the git processes that talk to the remote. */
  readonly env: Readonly<Record<string, string>>;
}

/** `https://github.com/owner/repo.git` with the token as actions/checkout sends it. */
export function remoteFor(serverUrl: string, fullName: string, token: string): Remote {
  const basic = Buffer.from(`x-access-token:${token}`, "utf8").toString("base64");
  return {
    url: `${serverUrl.replace(/\/+$/, "")}/${fullName}.git`,
    env: { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "http.extraheader", GIT_CONFIG_VALUE_0: `AUTHORIZATION: basic ${basic}`, GIT_TERMINAL_PROMPT: "0" },
  };
}

/**
 * The environment of everything naruto starts besides agents (git, the queue's verify command):
 * the basics a shell needs and nothing else, so no token, no `ACTIONS_*` runtime variable and no
 * action input reaches code that the agents wrote.
 */
export function scrubbedEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of BASIC_ENV_NAMES) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** Fetches `refspecs` (`+src:dst`) from the remote; refs that do not exist there fail the call. */
export async function fetchRefs(git: Git, repoDir: string, remote: Remote, refspecs: readonly string[]): Promise<void> {
  if (refspecs.length === 0) return;
  await git({ args: ["fetch", "--quiet", "--no-tags", "--update-head-ok", "--no-write-fetch-head", remote.url, ...refspecs], cwd: repoDir, env: remote.env });
}

/** Whether `commit` is in the local object store. */
export async function hasCommit(git: Git, repoDir: string, commit: string): Promise<boolean> {
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(commit)) return false;
  const { code } = await git({ args: ["cat-file", "-e", `${commit}^{commit}`], cwd: repoDir, okCodes: [1, 128] });
  return code === 0;
}

/**
 * Pushes `commit` to `ref`. With `expected`, a compare-and-swap: `--force-with-lease` on the
 * value read, so a ref someone else moved meanwhile is left alone and the push fails.
 *
 * @throws {WorkflowPermissionError} when GitHub refused the ref for its workflow files (the
 *   token has no `workflows` permission, and the ref would differ under `.github/workflows/`
 *   from what it was, or, for a new branch, from the default branch).
 */
export async function pushRef(
  git: Git,
  repoDir: string,
  remote: Remote,
  input: { commit: string; ref: string; expected?: string | null; force?: boolean },
): Promise<void> {
  const lease = input.expected === undefined ? [] : [`--force-with-lease=${input.ref}:${input.expected ?? ""}`];
  const refspec = `${input.force ? "+" : ""}${input.commit}:${input.ref}`;
  try {
    await gitText(git, {
      args: ["-c", "core.hooksPath=/dev/null", "push", "--quiet", "--porcelain", ...lease, remote.url, refspec],
      cwd: repoDir,
      env: remote.env,
    });
  } catch (error) {
    const path = error instanceof Error ? workflowRefusedPath(error.message) : null;
    if (path === null) throw error;
    throw new WorkflowPermissionError({ operation: `push ${input.ref}`, status: null, message: (error as Error).message, cause: error, path });
  }
}
