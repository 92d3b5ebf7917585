/**
 * The one path normalizer of naruto (README, "The plan format"). Plan checks, the no-overlap proof, scope
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
  const clean = typeof input === "string" ? cleanPath(input) : null;
  return clean === null ? normalizeAnyPath(input) : { ok: true, value: clean };
}

/**
 * The general normalizer: every rule of README, "The plan format", for any input. {@link normalizePath}
 * tries {@link cleanPath} first and comes here for everything else.
 */
export function normalizeAnyPath(input: string): NormalizeResult {
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

/**
 * The fast path of {@link normalizePath}, for the paths plans are made of (`src/api/users.ts`,
 * `test/api/`): printable ASCII other than `\`, components separated by single `/`, none of
 * them `.` or `..`, no leading `/`, no drive letter, not `.git` first. Such a path is already
 * in normal form, so the general normalizer would return the input itself as `path` and its
 * lower-cased components as `key` (ASCII needs no NFC); this returns exactly that in one scan
 * instead of a split, a join and a regular expression per component — a big plan has 50,000
 * paths. Null means "not clean": the caller runs the general normalizer, which also words the
 * errors. `paths.test.ts` checks both agree on random inputs.
 */
export function cleanPath(input: string): RepoPath | null {
  const n = input.length;
  if (n === 0 || input.charCodeAt(0) === SLASH || input.charCodeAt(1) === COLON) return null;
  let start = 0; // of the current component
  for (let i = 0; i <= n; i++) {
    const c = i < n ? input.charCodeAt(i) : SLASH;
    if (c === SLASH) {
      const length = i - start;
      if (length === 0) {
        if (i === n) break; // the trailing `/` of a subtree
        return null; // `//`
      }
      if (input.charCodeAt(start) === DOT && (length === 1 || (length === 2 && input.charCodeAt(start + 1) === DOT))) return null;
      if (start === 0 && length === 4 && input.slice(0, 4).toLowerCase() === ".git") return null;
      start = i + 1;
    } else if (c < 0x20 || c >= 0x7f || c === BACKSLASH) return null;
  }
  const subtree = input.charCodeAt(n - 1) === SLASH;
  const lower = input.toLowerCase();
  return { path: input, key: (subtree ? lower.slice(0, -1) : lower).split("/"), subtree };
}

const SLASH = 0x2f;
const COLON = 0x3a;
const DOT = 0x2e;
const BACKSLASH = 0x5c;

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
