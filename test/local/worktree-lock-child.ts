/**
 * One of the processes of worktree-lock.git.test.ts: adds and removes `count` work trees in the
 * repository through `serialWorktrees` with the lock file, and exits 0 when every call succeeded.
 *
 *   node --import tsx test/local/worktree-lock-child.ts REPO LOCKFILE PREFIX COUNT
 */
import { join } from "node:path";
import { gitText } from "../../src/git/run-git.ts";
import { serialWorktrees } from "../../src/local/serial-worktrees.ts";
import { testGit } from "../support/git-repo.ts";

const [repo = "", lockFile = "", prefix = "", count = "0"] = process.argv.slice(2);
const git = serialWorktrees(testGit(), { lockFile });
const trees = Array.from({ length: Number(count) }, (_, i) => join(repo, ".git", "naruto", "lock-test", `${prefix}-${i}`));
// All at once, as the local driver's attempts are: the in-process queue and the lock order them.
await Promise.all(trees.map((dir) => gitText(git, { args: ["worktree", "add", "-q", "--detach", dir, "HEAD"], cwd: repo })));
await gitText(git, { args: ["worktree", "list", "--porcelain"], cwd: repo });
await Promise.all(trees.map((dir) => gitText(git, { args: ["worktree", "remove", "--force", dir], cwd: repo })));
await gitText(git, { args: ["worktree", "prune"], cwd: repo });
