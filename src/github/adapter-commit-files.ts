/**
 * A commit's files with their texts in one request, through GraphQL: the REST API gives a tree's
 * entries without contents and a blob per request, so reading a mission stored as one record per
 * item (src/mission/records.ts) would cost a request per item. GitHub gives a blob's text inline
 * up to 512,000 bytes and says `isTruncated` beyond; such a file (and a binary one) comes back
 * without text, for {@link GitHubPort.readBlob}, which reads any size through the REST blob API.
 */
import type { AdapterContext } from "./adapter-context.ts";
import { GraphqlError } from "./errors.ts";
import { ONCE } from "./octokit-client.ts";
import type { CommittedFile, GitHubPort } from "./port.ts";

type CommitFilesPart = Pick<GitHubPort, "readCommitFiles" | "readTreeLevel" | "readBlob">;

// Three levels of entries: files at the root, in a folder, and in a folder's folder.
const QUERY = `query naruto_commitFiles($owner: String!, $name: String!, $oid: GitObjectID!) {
  repository(owner: $owner, name: $name) {
    object(oid: $oid) {
      __typename
      ... on Commit {
        tree {
          oid
          entries { ...entry object { ... on Tree { entries { ...entry object { ... on Tree { entries { ...entry } } } } } } }
        }
      }
    }
  }
}
fragment entry on TreeEntry { name type oid object { ... on Blob { text isTruncated isBinary } } }`;

// One level, of a commit's tree or of a tree: what a mission too large for one answer is read by.
const LEVEL_QUERY = `query naruto_treeLevel($owner: String!, $name: String!, $oid: GitObjectID!) {
  repository(owner: $owner, name: $name) {
    object(oid: $oid) {
      __typename
      ... on Commit { tree { oid entries { ...entry } } }
      ... on Tree { oid entries { ...entry } }
    }
  }
}
fragment entry on TreeEntry { name type oid object { ... on Blob { text isTruncated isBinary } } }`;

interface Entry {
  name: string;
  type: string;
  oid: string;
  object: { text?: string | null; isTruncated?: boolean; isBinary?: boolean | null; entries?: Entry[] | null } | null;
}

interface Answer {
  repository: { object: { __typename: string; tree?: { oid: string; entries: Entry[] | null } } | null } | null;
}

interface LevelAnswer {
  repository: { object: { __typename: string; oid?: string; entries?: Entry[] | null; tree?: { oid: string; entries: Entry[] | null } } | null } | null;
}

export function commitFilesPart(ctx: AdapterContext): CommitFilesPart {
  const { octokit, repo, call } = ctx;
  return {
    readCommitFiles: (commit) => {
      const operation = `read the files of ${commit.slice(0, 12)}`;
      return call(operation, async () => {
        if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(commit)) throw new TypeError(`${JSON.stringify(commit)} is not a full commit sha`);
        // Sent once: GitHub answers a read it cannot finish within 10 s with a 502 after those
        // 10 s, and so would every retry; the caller reads such a commit a level at a time.
        const data = await octokit.graphql<Answer>(QUERY, { owner: repo.owner, name: repo.repo, oid: commit, request: ONCE });
        if (data.repository === null) throw new GraphqlError({ operation, status: 200, message: "the answer holds no repository", errors: [] });
        const object = data.repository.object;
        if (object === null) return null;
        if (object.__typename !== "Commit" || object.tree === undefined)
          throw new GraphqlError({ operation, status: 200, message: `${commit} is a ${object.__typename}, not a commit`, errors: [] });
        const files: CommittedFile[] = [];
        collect(object.tree.entries ?? [], "", files);
        return { tree: object.tree.oid, files };
      });
    },

    readTreeLevel: (oid) => {
      const operation = `read the tree of ${oid.slice(0, 12)}`;
      return call(operation, async () => {
        if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(oid)) throw new TypeError(`${JSON.stringify(oid)} is not a full object id`);
        const data = await octokit.graphql<LevelAnswer>(LEVEL_QUERY, { owner: repo.owner, name: repo.repo, oid });
        if (data.repository === null) throw new GraphqlError({ operation, status: 200, message: "the answer holds no repository", errors: [] });
        const object = data.repository.object;
        if (object === null) return null;
        const tree =
          object.__typename === "Commit"
            ? object.tree
            : object.__typename === "Tree" && object.oid !== undefined
              ? { oid: object.oid, entries: object.entries ?? [] }
              : undefined;
        if (tree === undefined)
          throw new GraphqlError({ operation, status: 200, message: `${oid} is a ${object.__typename}, not a commit or a tree`, errors: [] });
        const files: CommittedFile[] = [];
        const entries = tree.entries ?? [];
        collect(
          entries.filter((e) => e.type === "blob"),
          "",
          files,
        );
        return { tree: tree.oid, files, folders: entries.filter((e) => e.type === "tree").map((e) => ({ name: e.name, tree: e.oid })) };
      });
    },

    readBlob: (sha) =>
      call(`read blob ${sha.slice(0, 12)}`, async () => {
        const { data } = await octokit.rest.git.getBlob({ ...repo, file_sha: sha });
        return Buffer.from(data.content, data.encoding === "base64" ? "base64" : "utf8").toString("utf8");
      }),
  };
}

/** The files among `entries` and the folders they hold, with paths under `prefix`. */
function collect(entries: readonly Entry[], prefix: string, into: CommittedFile[]): void {
  for (const e of entries) {
    const path = prefix + e.name;
    if (e.type === "tree") collect(e.object?.entries ?? [], `${path}/`, into);
    else if (e.type === "blob") {
      const whole = e.object !== null && e.object.isTruncated === false && e.object.isBinary !== true && typeof e.object.text === "string";
      into.push({ path, sha: e.oid, text: whole ? (e.object?.text ?? null) : null });
    }
  }
}
