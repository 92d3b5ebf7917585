/**
 * The queue's picture of a tree, kept in memory while a batch is built: which blob (and mode)
 * every path holds. It decides the fast path purely: a checkpoint applies at path level when
 * every path it changed still holds the blob it started from, and the result is a valid tree.
 */

/**
 * A path exactly as git stores it, one byte per character (read as latin1), so that no path is
 * ever re-encoded on its way from `diff-tree -z` to `fast-import` (git paths need not be UTF-8).
 */
export type RawPath = string;

/** The path as text for reports and users. */
export function displayPath(path: RawPath): string {
  return Buffer.from(path, "latin1").toString("utf8");
}

/** The raw form of a user-facing string (the inverse of `displayPath`). */
export function rawText(text: string): string {
  return Buffer.from(text, "utf8").toString("latin1");
}

export interface TreeEntry {
  /** Octal mode as git prints it: 100644, 100755, 120000 (symlink), 160000 (submodule). */
  readonly mode: string;
  readonly oid: string;
}

/** One path's change: `before`/`after` null mean "absent" (an add or a delete). */
export interface PathChange {
  readonly path: RawPath;
  readonly before: TreeEntry | null;
  readonly after: TreeEntry | null;
}

export type ApplyVerdict = { readonly ok: true } | { readonly ok: false; readonly paths: readonly RawPath[] };

function ancestors(path: RawPath): RawPath[] {
  const out: RawPath[] = [];
  for (let i = path.indexOf("/"); i !== -1; i = path.indexOf("/", i + 1)) out.push(path.slice(0, i));
  return out;
}

function sameEntry(a: TreeEntry | null | undefined, b: TreeEntry | null): boolean {
  if (!a || !b) return !a && !b;
  return a.mode === b.mode && a.oid === b.oid;
}

export class VirtualTree {
  private constructor(
    private readonly files: Map<RawPath, TreeEntry>,
    /** How many files lie under each directory: tells a file path from a directory path. */
    private readonly dirs: Map<RawPath, number>,
  ) {}

  static fromEntries(entries: Iterable<readonly [RawPath, TreeEntry]>): VirtualTree {
    const tree = new VirtualTree(new Map(), new Map());
    for (const [path, entry] of entries) tree.set(path, entry);
    return tree;
  }

  clone(): VirtualTree {
    return new VirtualTree(new Map(this.files), new Map(this.dirs));
  }

  get(path: RawPath): TreeEntry | undefined {
    return this.files.get(path);
  }

  get size(): number {
    return this.files.size;
  }

  entries(): IterableIterator<[RawPath, TreeEntry]> {
    return this.files.entries();
  }

  /**
   * Whether `changes` apply at path level: each path's pre-image is what this tree holds, and
   * the result has no file where a directory must be (or the reverse). Paths that fail either
   * test are returned; they need a real three-way merge.
   */
  check(changes: readonly PathChange[]): ApplyVerdict {
    const stale = changes.filter((c) => !sameEntry(this.files.get(c.path), c.before)).map((c) => c.path);
    if (stale.length > 0) return { ok: false, paths: stale };
    const after = new Map(changes.map((c) => [c.path, c.after] as const));
    const isFile = (p: RawPath) => (after.has(p) ? after.get(p) !== null : this.files.has(p));
    const clash: RawPath[] = [];
    for (const c of changes) {
      if (c.after === null) continue;
      if (ancestors(c.path).some(isFile)) clash.push(c.path);
      else if ((this.dirs.get(c.path) ?? 0) > 0) {
        // Files under this path survive unless the checkpoint itself deletes every one of them.
        const prefix = `${c.path}/`;
        const deleted = changes.filter((d) => d.after === null && d.before !== null && d.path.startsWith(prefix)).length;
        if ((this.dirs.get(c.path) ?? 0) - deleted > 0) clash.push(c.path);
      }
    }
    return clash.length > 0 ? { ok: false, paths: clash } : { ok: true };
  }

  /** Applies changes that are known to fit (checked, or read from git's own diff of two trees). */
  apply(changes: readonly PathChange[]): void {
    for (const c of changes) if (c.after === null) this.delete(c.path);
    for (const c of changes) if (c.after !== null) this.set(c.path, c.after);
  }

  private set(path: RawPath, entry: TreeEntry): void {
    if (!this.files.has(path)) for (const dir of ancestors(path)) this.dirs.set(dir, (this.dirs.get(dir) ?? 0) + 1);
    this.files.set(path, entry);
  }

  private delete(path: RawPath): void {
    if (!this.files.delete(path)) return;
    for (const dir of ancestors(path)) {
      const left = (this.dirs.get(dir) ?? 0) - 1;
      if (left > 0) this.dirs.set(dir, left);
      else this.dirs.delete(dir);
    }
  }
}
