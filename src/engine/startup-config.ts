/**
 * What agents read at start (docs/architecture.md): an agent CLI run in a tree reads that tree's
 * start-up config (Claude Code runs `.claude/settings.json` hooks in `-p` mode, with the agent's
 * environment and so its API key; Gemini CLI and aider load `.env`; MCP servers come from
 * `.mcp.json`). A tree that holds untrusted content — a fork's head under review, or what other
 * agents wrote when the config lets them write those paths — must not choose them. So before an
 * agent runs on such a tree, every start-up path is put back as the mission's base has it (the
 * default branch or a pull request of the repository: reviewed code), and a path the base lacks
 * is removed.
 *
 * The tree the agent gets is a commit of naruto's own: the head's tree with those paths
 * replaced, child of the head, written with a temporary index (no work tree, no hook, no ref).
 */
import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { gitText, writeTreeCommit, type Git } from "../git/index.ts";
import { AGENT_STARTUP_PATHS } from "../plan/index.ts";

/** The committer of naruto's own trees (never pushed, never integrated). */
const NARUTO = { name: "naruto", email: "naruto@users.noreply.github.com" };

/** The start-up paths as literal pathspecs: a directory covers what is under it. */
function pathspecs(): string[] {
  return AGENT_STARTUP_PATHS.map((p) => p.replace(/\/$/, ""));
}

/**
 * The commit an agent should get for `head`: `head` itself when its start-up config is the
 * base's, else a commit of `head`'s tree with the base's start-up config. `tmpDir` holds the
 * temporary index (outside any work tree).
 */
export async function withBaseStartupConfig(input: { git: Git; repoDir: string; tmpDir: string; head: string; base: string }): Promise<string> {
  const { git, repoDir, head, base } = input;
  if (head === base) return head;
  const call = (args: readonly string[], extra: { env?: Record<string, string>; input?: string } = {}) =>
    gitText(git, { args: ["--literal-pathspecs", "--no-optional-locks", ...args], cwd: repoDir, ...extra });
  const differs = await call(["diff-tree", "-r", "--no-renames", "--name-only", base, head, "--", ...pathspecs()]);
  if (differs === "") return head;
  const index = join(input.tmpDir, `startup-index-${randomBytes(6).toString("hex")}`);
  const env = { GIT_INDEX_FILE: index };
  try {
    await call(["read-tree", head], { env });
    const zero = "0".repeat(head.length);
    const listed = async (commit: string) =>
      (await call(["ls-tree", "-r", "-z", "--full-tree", commit, "--", ...pathspecs()])).split("\0").filter((l) => l !== "");
    // `--index-info` lines: mode 0 removes a path; `ls-tree` lines put the base's entry back.
    const removals = (await listed(head)).map((l) => `0 ${zero}\t${l.slice(l.indexOf("\t") + 1)}`);
    const lines = [...removals, ...(await listed(base))];
    if (lines.length > 0) await call(["update-index", "-z", "--index-info"], { env, input: `${lines.join("\0")}\0` });
    const tree = await call(["write-tree"], { env });
    return await writeTreeCommit({
      git,
      repoDir,
      tree,
      parent: head,
      identity: NARUTO,
      at: new Date(),
      message: `naruto: ${head.slice(0, 12)} with the start-up config of ${base.slice(0, 12)}`,
    });
  } finally {
    await rm(index, { force: true });
  }
}
