/**
 * The gate's object check (docs/architecture.md): every tree and blob a change brings that its base does
 * not hold at the same path, read with one `cat-file --batch-command` or through the repository's
 * long-running `cat-file` processes (the trees' content, the blobs' type and size), and judged
 * by git's fsck rules for trees (gate-tree.ts) and the size limit for blobs. A tree git itself
 * cannot walk (an empty name, a malformed mode, a missing object) makes the `diff-tree` that
 * lists them fail; then the trees are read level by level from the top ({@link walkAllTrees}),
 * so that the refusal still names the path.
 */
import { GitOutputError, type GitCallFor } from "./changes.ts";
import { collidingNames } from "./collisions.ts";
import { GITLINK_MODE, parseTree, TREE_MODE, treeProblems, type RawTreeEntry, type TreeRule } from "./tree.ts";
import { checkObjects, readObjects, type Git } from "../git/index.ts";

export type ObjectRule = TreeRule | "file_too_large";

export interface ObjectViolation {
  /** For display: UTF-8 where the bytes are, quoted where they hold control characters or other bytes. */
  readonly path: string;
  readonly rule: ObjectRule;
  readonly detail: string;
}

/** Names of one new tree that are one name on macOS and Windows (see collisions.ts), with the tree's path. */
export interface NameCollision {
  readonly dir: Buffer;
  readonly names: readonly Buffer[];
}

export interface NewObjects {
  readonly violations: readonly ObjectViolation[];
  /** Judged by the gate, which knows which of the names are new. */
  readonly collisions: readonly NameCollision[];
  /** Size of every new blob, by id (for reading the content of the files the gate allows). */
  readonly blobSizes: ReadonlyMap<string, number>;
}

// Beyond this depth a tree is refused rather than read further (git's own limit is 4096 by default).
const MAX_DEPTH = 512;

/**
 * Checks the objects `tip` (a commit or a tree) brings over its base: its root tree, and the
 * trees and blobs that differ from the base at their path (`diff-tree -t`, see changes.ts
 * `readDiff`), a superset of what the base does not hold. One `cat-file --batch-command` in the
 * call's repository, or with `repoDir` (a repository whose store holds the objects) its
 * long-running `cat-file --batch` and `--batch-check`: the content of each tree, the type and
 * size of each blob.
 *
 * @example await checkNewObjects({ git, call, tip: snapshotTree, trees, blobs, maxFileSize: 50 * 1024 * 1024 })
 */
export async function checkNewObjects(input: {
  git: Git;
  call: GitCallFor;
  tip: string;
  trees: readonly string[];
  blobs: readonly string[];
  maxFileSize: number;
  repoDir?: string;
}): Promise<NewObjects> {
  const { git, call } = input;
  const idBytes = input.tip.length / 2;
  const treeSet = new Set(input.trees);
  const treeIds = [...treeSet];
  const blobIds = [...new Set(input.blobs)].filter((b) => !treeSet.has(b));
  const read =
    input.repoDir === undefined
      ? await readByCommands(git, call, [`contents ${input.tip}^{tree}`, ...treeIds.map((t) => `contents ${t}`), ...blobIds.map((b) => `info ${b}`)])
      : await readInSessions(git, input.repoDir, input.tip, treeIds, blobIds);
  const root = read[0];
  const types = new Map(read.slice(1).flatMap((o) => (o === null ? [] : [[o.oid, o] as const])));
  // Only what was read with its content: an `info` answer of type tree has none.
  const trees = new Map(read.slice(0, 1 + treeIds.length).flatMap((o) => (o === null ? [] : [[o.oid, o] as const])));

  const violations: ObjectViolation[] = [];
  const collisions: NameCollision[] = [];
  const blobSizes = new Map<string, number>();
  const blobPaths = new Map<string, Buffer>();
  const queue: { oid: string; path: Buffer }[] = [{ oid: root?.oid ?? `${input.tip}^{tree}`, path: Buffer.alloc(0) }];
  const visited = new Set<string>();
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    if (visited.has(next.oid)) continue;
    visited.add(next.oid);
    const entries = judgeTree(trees.get(next.oid), next.path, idBytes, violations);
    for (const names of collidingNames(entries.map((e) => e.name))) collisions.push({ dir: next.path, names });
    for (const entry of entries) {
      const found = types.get(entry.oid);
      if (found === undefined || entry.mode === GITLINK_MODE) continue;
      const path = join(next.path, entry.name);
      const wanted = isTreeMode(entry.mode) ? "tree" : "blob";
      if (found.type !== wanted)
        violations.push({ path: showPath(path), rule: "bad_tree", detail: `mode ${entry.mode} names a ${found.type}, not a ${wanted}` });
      else if (wanted === "tree") queue.push({ oid: entry.oid, path });
      else if (!blobPaths.has(entry.oid)) blobPaths.set(entry.oid, path);
    }
  }
  for (const o of types.values()) {
    if (o.type !== "blob") continue;
    blobSizes.set(o.oid, o.size);
    if (o.size > input.maxFileSize) {
      const path = blobPaths.get(o.oid);
      violations.push({
        path: path ? showPath(path) : `(blob ${o.oid.slice(0, 12)})`,
        rule: "file_too_large",
        detail: `${o.size} bytes, more than limits.max_file_size (${input.maxFileSize} bytes)`,
      });
    }
  }
  return { violations, collisions, blobSizes };
}

/** The answers to `contents` and `info` commands, in order, from one `cat-file --batch-command` (git 2.36 or later). */
async function readByCommands(git: Git, call: GitCallFor, commands: readonly string[]): Promise<(BatchObject | null)[]> {
  const { stdout } = await git(call(["cat-file", "--batch-command"], { input: commands.map((c) => `${c}\n`).join("") }));
  return parseBatchCommand(stdout, commands);
}

/**
 * The same answers from the repository's long-running processes, which hold its objects (and
 * the work directory's, written into its store): the trees' content from `cat-file --batch`, the
 * blobs' type and size from `cat-file --batch-check`, side by side; no process of their own.
 * The tip's tree: the tip itself, or the tree its commit names (a second read).
 */
async function readInSessions(git: Git, repoDir: string, tip: string, trees: readonly string[], blobs: readonly string[]): Promise<(BatchObject | null)[]> {
  const batch = async (read: typeof readObjects, ids: readonly string[]) => (ids.length === 0 ? Buffer.alloc(0) : (await git(read(repoDir, ids))).stdout);
  const [contents, infos] = await Promise.all([batch(readObjects, [tip, ...trees]), batch(checkObjects, blobs)]);
  const read = parseBatchCommand(
    contents,
    [tip, ...trees].map((id) => `contents ${id}`),
  );
  const first = read[0];
  if (first?.type === "commit") {
    const tree = /^tree ([0-9a-f]{40}(?:[0-9a-f]{24})?)\n/.exec(first.content.toString("latin1"))?.[1];
    read[0] = tree === undefined ? null : (parseBatchCommand(await batch(readObjects, [tree]), [`contents ${tree}`])[0] ?? null);
  }
  return [
    ...read,
    ...parseBatchCommand(
      infos,
      blobs.map((id) => `info ${id}`),
    ),
  ];
}

/** The fsck problems of one tree (named by path), and its entries to walk on. */
function judgeTree(object: BatchObject | undefined, path: Buffer, idBytes: number, violations: ObjectViolation[]): readonly RawTreeEntry[] {
  const where = path.length === 0 ? "." : showPath(path);
  if (object === undefined) {
    violations.push({ path: where, rule: "bad_tree", detail: "a tree git cannot read (missing)" });
    return [];
  }
  if (object.type !== "tree") {
    violations.push({ path: where, rule: "bad_tree", detail: `a tree entry names a ${object.type}` });
    return [];
  }
  const parsed = parseTree(object.content, idBytes);
  if (!parsed.ok) violations.push({ path: where, rule: "bad_tree", detail: parsed.detail });
  for (const p of treeProblems(parsed.entries)) violations.push({ path: showPath(join(path, p.name)), rule: p.rule, detail: p.detail });
  return parsed.entries;
}

/**
 * When git cannot walk the trees: every tree under the tip, one level (one `cat-file --batch`)
 * at a time, to find and name what is wrong. Only ever run for a change that is refused.
 */
export async function walkAllTrees(input: { git: Git; call: GitCallFor; tip: string; idBytes: number }): Promise<ObjectViolation[]> {
  const violations: ObjectViolation[] = [];
  const visited = new Set<string>();
  let level: { oid: string; path: Buffer }[] = [{ oid: `${input.tip}^{tree}`, path: Buffer.alloc(0) }];
  for (let depth = 0; level.length > 0; depth++) {
    if (depth > MAX_DEPTH) {
      violations.push({ path: showPath(level[0]!.path), rule: "bad_tree", detail: `trees nested deeper than ${MAX_DEPTH} levels` });
      break;
    }
    const read = parseBatch(
      (await input.git(input.call(["cat-file", "--batch"], { input: level.map((l) => `${l.oid}\n`).join("") }))).stdout,
      level.map((l) => l.oid),
    );
    const next: typeof level = [];
    for (const { oid, path } of level) {
      for (const entry of judgeTree(read.get(oid), path, input.idBytes, violations)) {
        if (isTreeMode(entry.mode) && !visited.has(entry.oid)) {
          visited.add(entry.oid);
          next.push({ oid: entry.oid, path: join(path, entry.name) });
        }
      }
    }
    level = next;
  }
  if (violations.length === 0) violations.push({ path: ".", rule: "bad_tree", detail: "git cannot list the change's objects (one is missing or unreadable)" });
  return violations;
}

interface BatchObject {
  readonly oid: string;
  readonly type: string;
  readonly size: number;
  readonly content: Buffer;
}

/**
 * `cat-file --batch-command` output for `contents <id>` and `info <id>` commands, one answer per
 * command in order (null: missing). `info` answers carry no content.
 */
function parseBatchCommand(out: Buffer, commands: readonly string[]): (BatchObject | null)[] {
  const answers: (BatchObject | null)[] = [];
  let at = 0;
  for (const command of commands) {
    const eol = out.indexOf(0x0a, at);
    if (eol === -1) throw new GitOutputError(`cat-file --batch-command gave no answer to ${JSON.stringify(command)}`);
    const [oid = "", type = "", size = ""] = out.subarray(at, eol).toString("latin1").split(" ");
    at = eol + 1;
    if (type === "missing" || type === "ambiguous") {
      answers.push(null);
      continue;
    }
    const length = Number(size);
    const withContent = command.startsWith("contents ");
    answers.push({ oid, type, size: length, content: withContent ? out.subarray(at, at + length) : Buffer.alloc(0) });
    if (withContent) at += length + 1;
  }
  return answers;
}

/**
 * `cat-file --batch` output, by object id. `asked` names the requests in order, so that an
 * object asked for by name (`<commit>^{tree}`) is found under that name too.
 */
function parseBatch(out: Buffer, asked: readonly string[] = []): Map<string, BatchObject> {
  const objects = new Map<string, BatchObject>();
  let at = 0;
  for (let i = 0; at < out.length; i++) {
    const eol = out.indexOf(0x0a, at);
    if (eol === -1) break;
    const [oid = "", type = "", size = ""] = out.subarray(at, eol).toString("latin1").split(" ");
    if (type === "missing" || type === "ambiguous") {
      at = eol + 1;
      continue;
    }
    const length = Number(size);
    const object = { oid, type, size: length, content: out.subarray(eol + 1, eol + 1 + length) };
    objects.set(oid, object);
    if (asked[i] !== undefined) objects.set(asked[i]!, object);
    at = eol + 1 + length + 1;
  }
  return objects;
}

/** A tree's mode, also written zero-padded (which fsck refuses on its own). */
function isTreeMode(mode: string): boolean {
  return parseInt(mode, 8) === parseInt(TREE_MODE, 8);
}

export function join(dir: Buffer, name: Buffer): Buffer {
  return dir.length === 0 ? name : Buffer.concat([dir, Buffer.from("/"), name]);
}

/** A path for a report: as text when it is plain UTF-8, JSON-quoted when it holds control characters or other bytes. */
export function showPath(path: Buffer): string {
  const text = path.toString("utf8");
  return Buffer.from(text, "utf8").equals(path) && !/[\u0000-\u001f\u007f]/.test(text) ? text : JSON.stringify(text);
}
