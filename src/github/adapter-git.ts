/**
 * Refs and the Git Data API: how naruto writes commits (mission state, queue moves) without a
 * checkout, and moves refs by compare-and-swap.
 */
import { GitHubError, NotFastForwardError, RefExistsError, RefMissingError } from "./errors.ts";
import { mapError } from "./adapter-context.ts";
import { ONCE, UnansweredWriteError } from "./octokit-client.ts";
import { nullOn404 } from "./adapter-issues.ts";
import type { AdapterContext } from "./adapter-context.ts";
import type { ChangedFile, ChangeStatus, GitHubPort, TreeEntry } from "./port.ts";

type GitPart = Pick<
  GitHubPort,
  "getRef" | "createRef" | "updateRef" | "deleteRef" | "listRefs" | "createBlob" | "createTree" | "createCommit" | "getCommit" | "compareCommits"
>;

/** GitHub lists at most this many files in one comparison. */
const COMPARE_FILE_CAP = 300;
const CHANGE_STATUSES: readonly ChangeStatus[] = ["added", "removed", "modified", "renamed", "copied", "changed", "unchanged"];

export function gitPart(ctx: AdapterContext): GitPart {
  const { octokit, repo, call } = ctx;

  const getRef: GitPart["getRef"] = async (ref) => {
    const data = await call(`read ${ref}`, () => octokit.rest.git.getRef({ ...repo, ref: apiRef(ref) }).then((r) => r.data)).catch(nullOn404);
    return data === null ? null : data.object.sha;
  };

  const compareCommits: GitPart["compareCommits"] = ({ base, head }) =>
    call(`compare ${base}...${head}`, async () => {
      const { data } = await octokit.rest.repos.compareCommitsWithBasehead({ ...repo, basehead: `${base}...${head}` });
      const files = (data.files ?? []).map(
        (f): ChangedFile => ({ path: f.filename, status: CHANGE_STATUSES.find((s) => s === f.status) ?? "changed", previousPath: f.previous_filename ?? null }),
      );
      return {
        status: data.status,
        aheadBy: data.ahead_by,
        behindBy: data.behind_by,
        files,
        filesComplete: files.length < COMPARE_FILE_CAP,
        mergeBase: data.merge_base_commit.sha,
      };
    });

  return {
    getRef,

    async createRef({ ref, sha }) {
      apiRef(ref);
      await ctx.createOnce({
        operation: `create ${ref}`,
        create: () => octokit.rest.git.createRef({ ...repo, ref, sha, request: ONCE }).then(() => true),
        check: async () => {
          const current = await getRef(ref);
          if (current === null) return null;
          if (current === sha) return true;
          throw new RefExistsError({ operation: `create ${ref}`, status: 422, message: "another writer created it first: read it instead of creating it" });
        },
      });
    },

    async updateRef({ ref, sha, force = false }) {
      const operation = `move ${ref} to ${sha.slice(0, 12)}${force ? " (forced)" : ""}`;
      const patch = () => octokit.rest.git.updateRef({ ...repo, ref: apiRef(ref), sha, force, request: ONCE });
      let unanswered = false;
      for (let attempt = 1; ; attempt++) {
        try {
          await patch();
          return;
        } catch (error) {
          if (error instanceof UnansweredWriteError && attempt < 3) {
            unanswered = true;
            if ((await getRef(ref)) === sha) return;
            continue;
          }
          const typed = mapError(operation, error);
          // After an unanswered move, "not a fast forward" may mean our move landed and another
          // writer built on it: then our commit is an ancestor of the ref, and the move succeeded.
          if (unanswered && typed instanceof NotFastForwardError && (await landedUnder(ref, sha))) return;
          throw typed;
        }
      }
    },

    async deleteRef(ref) {
      try {
        await call(`delete ${ref}`, () => octokit.rest.git.deleteRef({ ...repo, ref: apiRef(ref) }));
        return true;
      } catch (error) {
        if (error instanceof RefMissingError || (error instanceof GitHubError && error.status === 404)) return false;
        throw error;
      }
    },

    listRefs: (prefix) =>
      call(`list refs under ${prefix}`, async () => {
        // Not paginated: GitHub documents no page parameters for matching refs.
        const refs = (await octokit.rest.git.listMatchingRefs({ ...repo, ref: apiRef(prefix) })).data;
        return refs.filter((r) => r.ref.startsWith(prefix)).map((r) => ({ ref: r.ref, sha: r.object.sha }));
      }),

    // Git objects are named by their content: sending one twice is harmless, so these are
    // plain retried requests, not ONCE.
    createBlob: (content) =>
      call("create blob", async () => {
        const body = typeof content === "string" ? { content, encoding: "utf-8" } : { content: Buffer.from(content).toString("base64"), encoding: "base64" };
        return (await octokit.rest.git.createBlob({ ...repo, ...body })).data.sha;
      }),

    createTree: ({ entries, base }) =>
      call("create tree", async () => {
        // Text given inline becomes a blob on GitHub's side: one request instead of two.
        const tree = entries.map((e: TreeEntry) =>
          "content" in e
            ? { path: e.path, mode: e.mode, type: "blob" as const, content: e.content }
            : { path: e.path, mode: e.mode, type: objectType(e.mode), sha: e.sha },
        );
        return (await octokit.rest.git.createTree({ ...repo, tree, ...(base ? { base_tree: base } : {}) })).data.sha;
      }),

    createCommit: ({ message, tree, parents }) =>
      call("create commit", async () => (await octokit.rest.git.createCommit({ ...repo, message, tree, parents: [...parents] })).data.sha),

    getCommit: (sha) =>
      call(`read commit ${sha.slice(0, 12)}`, async () => {
        const { data } = await octokit.rest.git.getCommit({ ...repo, commit_sha: sha });
        return { sha: data.sha, tree: data.tree.sha, parents: data.parents.map((p) => p.sha), message: data.message };
      }),

    compareCommits,
  };

  async function landedUnder(ref: string, sha: string): Promise<boolean> {
    const current = await getRef(ref);
    if (current === null) return false;
    const { status } = await compareCommits({ base: sha, head: current });
    return status === "ahead" || status === "identical";
  }
}

/** Octokit's ref parameters are written without the leading `refs/` (`heads/main`). */
function apiRef(ref: string): string {
  if (!ref.startsWith("refs/") || ref.length <= 5) throw new TypeError(`${JSON.stringify(ref)}: name refs in full, like refs/heads/main`);
  return ref.slice("refs/".length);
}

function objectType(mode: TreeEntry["mode"]): "blob" | "tree" | "commit" {
  return mode === "040000" ? "tree" : mode === "160000" ? "commit" : "blob";
}
