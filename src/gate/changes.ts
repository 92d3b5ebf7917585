import { splitNul, type Git, type GitCall } from "../git/index.ts";

/** Builds the git call for `args` (naruto's view of a work directory passes its own; see src/sandbox/git-view.ts). */
export type GitCallFor = (args: readonly string[], extra?: { input?: string }) => GitCall;

/** One changed path between the start commit and what the agent left. */
export interface Change {
  /** A mode-only change (e.g. the executable bit) is `modified` with different modes. */
  readonly kind: "added" | "deleted" | "modified" | "renamed" | "type_changed";
  /** The path after the change (for `deleted`, the path that was deleted). */
  readonly path: string;
  /** For `renamed`: the old path. Both sides of a rename are changed paths. */
  readonly from: string | null;
  /** git modes: `100644`, `100755` (executable), `120000` (symlink), `160000` (submodule); null when absent. */
  readonly oldMode: string | null;
  readonly newMode: string | null;
  readonly oldOid: string | null;
  readonly newOid: string | null;
  /** git treats the content as binary (no line counts). */
  readonly binary: boolean;
  /** For a symlink after the change: where it points, as stored. */
  readonly symlinkTarget: string | null;
}

/** git answered in a shape this parser does not know (a git version or bug to report). */
export class GitOutputError extends Error {
  override readonly name = "GitOutputError";
}

export const SYMLINK_MODE = "120000";
const NO_MODE = "000000";
const TREE_RECORD_MODE = "040000";
const KINDS: Readonly<Record<string, Change["kind"]>> = { A: "added", D: "deleted", M: "modified", R: "renamed", T: "type_changed" };

/**
 * Lists every change from commit `base` to tree `tree` (the snapshot of the work tree), with
 * rename detection: a rename is reported once, with both paths. Two git processes at most (one
 * `diff-tree`, one `cat-file` when symlinks changed), whatever the number of paths.
 *
 * @param call how to run git: naruto's view of the work directory the tree was read from, or
 *   (default) a plain call in `gitDir`, any git directory of the repository
 */
export async function listChanges(options: {
  readonly git: Git;
  readonly gitDir?: string;
  readonly call?: GitCallFor;
  readonly base: string;
  readonly tree: string;
}): Promise<Change[]> {
  const call: GitCallFor =
    options.call ??
    ((args, extra) => ({
      args: ["--git-dir", options.gitDir ?? ".", ...args],
      cwd: options.gitDir ?? ".",
      ...(extra?.input !== undefined ? { input: extra.input } : {}),
    }));
  const { stdout } = await options.git(call(diffTreeArgs(options.base, options.tree)));
  return withSymlinkTargets(options.git, call, parseDiffTree(stdout));
}

/** A tree that differs from its base at the same path (new or changed): `diff-tree -t`. */
export interface ChangedTree {
  readonly path: string;
  readonly oid: string;
  /** The base has nothing at this path. */
  readonly added: boolean;
}

/**
 * The changes from `base` to `tip`, and every tree of `tip` that its base does not hold at the
 * same path (the root aside): one `diff-tree -t`. Null when git cannot walk the trees (one
 * is missing or malformed). Symlink targets are not read (see {@link withSymlinkTargets}).
 */
export async function readDiff(options: {
  readonly git: Git;
  readonly call: GitCallFor;
  readonly base: string;
  readonly tip: string;
}): Promise<{ changes: Change[]; trees: ChangedTree[] } | null> {
  const out = await options.git({ ...options.call(diffTreeArgs(options.base, options.tip, { trees: true })), okCodes: [128] });
  if (out.code !== 0) return null;
  return parseDiffTreeWithTrees(out.stdout);
}

function diffTreeArgs(base: string, tip: string, options: { trees?: boolean } = {}): string[] {
  return [
    "--no-optional-locks",
    "diff-tree",
    "-r",
    ...(options.trees ? ["-t"] : []),
    "-z",
    "-M",
    "--raw",
    "--numstat",
    "--no-abbrev",
    "--no-textconv",
    "--no-ext-diff",
    "--end-of-options",
    base,
    tip,
  ];
}

/** The changes with the target of every symlink they leave (one `cat-file` when there is one). */
export async function withSymlinkTargets(git: Git, call: GitCallFor, changes: Change[]): Promise<Change[]> {
  const links = changes.filter((c) => c.newMode === SYMLINK_MODE && c.newOid !== null);
  if (links.length === 0) return changes;
  const targets = await readBlobs(
    git,
    call,
    links.map((c) => c.newOid!),
  );
  return changes.map((c) => (c.newMode === SYMLINK_MODE && c.newOid !== null ? { ...c, symlinkTarget: targets.get(c.newOid) ?? null } : c));
}

/**
 * Parses `git diff-tree -r -z -M --raw --numstat` output. The raw records come first
 * (`:<modes> <oids> <status>\0<path>\0[<new path>\0]`), then the numstat records
 * (`<added>\t<deleted>\t<path>\0`, or `…\t\0<old>\0<new>\0` for a rename); binary files count `-`.
 * Records are read by structure, never by looking at path text, so any path parses. With `-t`,
 * tree records (mode `040000`) come too; they are not changes (see {@link parseDiffTreeWithTrees}).
 */
export function parseDiffTree(out: Buffer | string): Change[] {
  return parseDiffTreeWithTrees(out).changes;
}

/** {@link parseDiffTree}, and the tree records of `diff-tree -t` (the new side of each). */
export function parseDiffTreeWithTrees(out: Buffer | string): { changes: Change[]; trees: ChangedTree[] } {
  const trees: ChangedTree[] = [];
  const tokens = splitNul(out);
  const raw: Omit<Change, "binary" | "symlinkTarget">[] = [];
  const binary = new Set<string>();
  for (let i = 0; i < tokens.length; ) {
    const head = tokens[i++]!;
    if (head.startsWith(":")) {
      const [oldMode, newMode, oldOid, newOid, status] = head.slice(1).split(" ");
      const kind = KINDS[(status ?? "").charAt(0)];
      if (!kind || !oldMode || !newMode || !oldOid || !newOid) throw new GitOutputError(`unexpected diff-tree record ${JSON.stringify(head)}`);
      const first = tokens[i++]!;
      const second = kind === "renamed" ? tokens[i++]! : null;
      if (oldMode === TREE_RECORD_MODE || newMode === TREE_RECORD_MODE) {
        // `-t`: a tree record (never renamed), for the gate; not a change of its own.
        if (newMode === TREE_RECORD_MODE) trees.push({ path: first, oid: newOid, added: oldMode === NO_MODE });
        continue;
      }
      raw.push({
        kind,
        path: second ?? first,
        from: second === null ? null : first,
        oldMode: oldMode === NO_MODE ? null : oldMode,
        newMode: newMode === NO_MODE ? null : newMode,
        oldOid: oldMode === NO_MODE ? null : oldOid,
        newOid: newMode === NO_MODE ? null : newOid,
      });
    } else {
      const [added, , path] = head.split("\t");
      const target = path === "" ? (i++, tokens[i++]!) : path!;
      if (added === "-") binary.add(target);
    }
  }
  return { changes: raw.map((c) => ({ ...c, binary: binary.has(c.path), symlinkTarget: null })), trees };
}

/** Every path a set of changes touches, both sides of renames, sorted and unique. */
export function changedPaths(changes: readonly Change[]): string[] {
  const paths = new Set<string>();
  for (const c of changes) {
    paths.add(c.path);
    if (c.from !== null) paths.add(c.from);
  }
  return [...paths].sort();
}

async function readBlobs(git: Git, call: GitCallFor, oids: readonly string[]): Promise<Map<string, string>> {
  const unique = [...new Set(oids)];
  const { stdout } = await git(call(["cat-file", "--batch"], { input: `${unique.join("\n")}\n` }));
  const blobs = new Map<string, string>();
  let at = 0;
  for (const oid of unique) {
    const eol = stdout.indexOf(0x0a, at);
    const size = Number(stdout.subarray(at, eol).toString("latin1").split(" ")[2]);
    if (!Number.isInteger(size)) throw new GitOutputError(`cat-file could not read object ${oid}`);
    blobs.set(oid, stdout.subarray(eol + 1, eol + 1 + size).toString("utf8"));
    at = eol + 1 + size + 1;
  }
  return blobs;
}
