/**
 * The one path normalizer of naruto (DESIGN.md §3). Plan checks, the no-overlap proof, scope
 * checks of what agents changed and the scheduler all compare paths through this file, so that
 * a path the proof calls disjoint is also disjoint where it is enforced.
 */

/** A repository path in normal form. */
export interface RepoPath {
  /** Display form: POSIX, no `./`, no duplicate `/`; subtrees end in `/`; the root is `.`. */
  readonly path: string;
  /** Components in comparison form (NFC, lower case): `A.ts` and `a.ts` are one path. */
  readonly key: readonly string[];
  /** Written with a trailing `/` (or the root): the author meant a directory subtree. */
  readonly subtree: boolean;
}

export type NormalizeResult = { ok: true; value: RepoPath } | { ok: false; message: string };

// Control characters would let a path hide from a human reader (and NUL cannot be in a path).
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Normalizes a path written in a plan or config.
 *
 * @example normalizePath("./src//api/") → { ok: true, value: { path: "src/api/", … } }
 * @example normalizePath("../x") → { ok: false, message: '".." leaves the repository' }
 */
export function normalizePath(input: string): NormalizeResult {
  if (typeof input !== "string" || input.length === 0) return fail("the path is empty");
  if (CONTROL.test(input)) return fail("the path contains a NUL or control character");
  if (input.includes("\\")) return fail(`use "/" to separate path components, not "\\"`);
  if (input === "/") return { ok: true, value: ROOT };
  if (input.startsWith("/") || /^[A-Za-z]:/.test(input)) {
    return fail("absolute paths are not allowed: write the path relative to the repository root");
  }
  const parts: string[] = [];
  for (const part of input.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (parts.length === 0) return fail(`".." leaves the repository`);
      parts.pop();
      continue;
    }
    parts.push(part);
  }
  if (parts.length === 0) return { ok: true, value: ROOT };
  if (parts[0]!.toLowerCase() === ".git") return fail(`".git" is git's own directory, not part of the repository`);
  const subtree = input.endsWith("/") || input.endsWith("/.") || input.endsWith("/..");
  return { ok: true, value: makePath(parts, subtree) };
}

/** The whole repository: overlaps every path. */
export const ROOT: RepoPath = Object.freeze({ path: ".", key: Object.freeze([]) as readonly string[], subtree: true });

/**
 * A path as git reports it (always relative and clean). Never fails: a changed file with odd
 * characters in its name is still a file, and the scope check must see it.
 */
export function repoPathOf(gitPath: string): RepoPath {
  const parts = gitPath.split("/").filter((p) => p !== "");
  return parts.length === 0 ? ROOT : makePath(parts, false);
}

function makePath(parts: string[], subtree: boolean): RepoPath {
  return {
    path: parts.join("/") + (subtree ? "/" : ""),
    key: parts.map(keyOf),
    subtree,
  };
}

/** Comparison form of one component: case-insensitive and Unicode-normalized. */
export function keyOf(component: string): string {
  // ASCII is already in NFC, and the Unicode normalizer is the slow part on big plans.
  if (ASCII.test(component)) return component.toLowerCase();
  return component.normalize("NFC").toLowerCase();
}

const ASCII = /^[\x00-\x7f]*$/;

/** The comparison key of a whole path, components joined by `/` (the root is ""). */
export function pathKey(p: RepoPath): string {
  return p.key.join("/");
}

/** `a` is `b` or an ancestor of `b` by whole components (`src/a` is not an ancestor of `src/ab`). */
export function isAncestorOrSelf(a: RepoPath, b: RepoPath): boolean {
  if (a.key.length > b.key.length) return false;
  for (let i = 0; i < a.key.length; i++) if (a.key[i] !== b.key[i]) return false;
  return true;
}

/**
 * Two paths overlap when they are equal or one is an ancestor of the other. A path written
 * without a trailing `/` still overlaps what lies under it: if it names a directory in the
 * repository, writing it writes its contents.
 */
export function pathsOverlap(a: RepoPath, b: RepoPath): boolean {
  return isAncestorOrSelf(a, b) || isAncestorOrSelf(b, a);
}

/** The part two overlapping paths share: the deeper of the two. */
export function overlapOf(a: RepoPath, b: RepoPath): RepoPath | null {
  if (isAncestorOrSelf(a, b)) return b;
  if (isAncestorOrSelf(b, a)) return a;
  return null;
}

/** True when some path of `within` is the file itself or one of its ancestors. */
export function isCoveredBy(file: RepoPath, within: readonly RepoPath[]): boolean {
  return within.some((w) => isAncestorOrSelf(w, file));
}

function fail(message: string): NormalizeResult {
  return { ok: false, message };
}
