/**
 * Trees and commits that `git add` cannot make — a `.git` entry, a name holding `/`, `..` as a
 * name, a name twice, a mode git never writes — written byte for byte with
 * `git hash-object -t tree --literally`, the way a hostile work job could put them in a bundle.
 */
import type { Git } from "../../src/git/run-git.ts";
import { gitText } from "../../src/git/run-git.ts";

/**
 * A tree entry's content: file text (mode 100644), a blob with a mode, a gitlink, a folder, or
 * an object id with a mode (to point anywhere).
 */
export type ForgedNode =
  | string
  | Buffer
  | { readonly content: string | Buffer; readonly mode: string }
  | { readonly gitlink: string }
  | { readonly oid: string; readonly mode: string }
  | { readonly tree: ForgedDir; readonly mode?: string }
  | ForgedDir;

/** A folder: its entries in the order given (sorted the way git sorts unless `keepOrder`). */
export type ForgedDir = readonly (readonly [name: string | Buffer, node: ForgedNode])[];

interface Entry {
  readonly mode: string;
  readonly name: Buffer;
  readonly oid: string;
}

/** Writes a tree exactly as described, returns its id. */
export async function forgeTree(git: Git, dir: string, spec: ForgedDir, options: { keepOrder?: boolean } = {}): Promise<string> {
  const entries: Entry[] = [];
  for (const [name, node] of spec) entries.push({ name: Buffer.from(name), ...(await nodeEntry(git, dir, node, options)) });
  const ordered = options.keepOrder ? entries : [...entries].sort((a, b) => Buffer.compare(sortKey(a), sortKey(b)));
  const bytes = Buffer.concat(ordered.map((e) => Buffer.concat([Buffer.from(`${e.mode} `), e.name, Buffer.from([0]), Buffer.from(e.oid, "hex")])));
  return (await git({ args: ["hash-object", "-t", "tree", "-w", "--literally", "--stdin"], cwd: dir, input: bytes })).stdout.toString().trim();
}

/**
 * A checkpoint-shaped commit on `base`: the base's top-level entries, with `top` added (an entry
 * of the same name replaces the base's).
 */
export async function forgeCommit(
  git: Git,
  dir: string,
  input: { base: string; top: ForgedDir; message: string; keepOrder?: boolean },
): Promise<{ commit: string; tree: string }> {
  const listing = (await git({ args: ["ls-tree", "-z", input.base], cwd: dir })).stdout
    .toString("latin1")
    .split("\0")
    .filter((l) => l !== "");
  const names = new Set(input.top.map(([name]) => Buffer.from(name).toString("latin1")));
  const kept: [Buffer, ForgedNode][] = [];
  for (const line of listing) {
    const tab = line.indexOf("\t");
    const [mode = "", , oid = ""] = line.slice(0, tab).split(" ");
    const name = line.slice(tab + 1);
    // ls-tree pads a tree's mode (040000); the tree object holds 40000.
    if (!names.has(name)) kept.push([Buffer.from(name, "latin1"), { oid, mode: mode === "040000" ? "40000" : mode }]);
  }
  const tree = await forgeTree(git, dir, [...kept, ...input.top], { keepOrder: input.keepOrder ?? false });
  const commit = await gitText(git, { args: ["commit-tree", "-p", input.base, "-m", input.message, tree], cwd: dir });
  return { commit, tree };
}

async function nodeEntry(git: Git, dir: string, node: ForgedNode, options: { keepOrder?: boolean }): Promise<{ mode: string; oid: string }> {
  if (typeof node === "string" || Buffer.isBuffer(node)) return { mode: "100644", oid: await blob(git, dir, node) };
  if (Array.isArray(node)) return { mode: "40000", oid: await forgeTree(git, dir, node as ForgedDir, options) };
  const n = node as Exclude<ForgedNode, string | Buffer | ForgedDir>;
  if ("content" in n) return { mode: n.mode, oid: await blob(git, dir, n.content) };
  if ("gitlink" in n) return { mode: "160000", oid: n.gitlink };
  if ("tree" in n) return { mode: n.mode ?? "40000", oid: await forgeTree(git, dir, n.tree, options) };
  return { mode: n.mode, oid: n.oid };
}

async function blob(git: Git, dir: string, content: string | Buffer): Promise<string> {
  return (await git({ args: ["hash-object", "-w", "--stdin"], cwd: dir, input: content })).stdout.toString().trim();
}

function sortKey(e: Entry): Buffer {
  return e.mode === "40000" || e.mode === "040000" ? Buffer.concat([e.name, Buffer.from("/")]) : e.name;
}
