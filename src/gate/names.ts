/**
 * The names git itself refuses or treats specially (docs/architecture.md, "The gate"), written after
 * git's own rules (fsck.c `fsck_tree`, path.c `is_ntfs_dotgit`, utf8.c `is_hfs_dotgit`, read-cache.c
 * `verify_path`) and checked on the bytes of a name: a name that any git on any file system would
 * take for `.git`, `.gitmodules` or `.gitattributes` is one here.
 *
 * - HFS+ ignores some Unicode code points in names: `.g\u200cit` is `.git` on a Mac.
 * - NTFS drops trailing dots and spaces (`.git. `), reads `name:stream` as `name`, and gives
 *   long names an 8.3 short name (`git~1` for `.git`, `gitmod~1` or `gi7eba~1` for `.gitmodules`).
 * - Windows takes `\` for a directory separator, so `a\.git` holds a `.git` there.
 */

/** A name of a tree entry (or a file on disk), as bytes: git names need not be UTF-8. */
export type NameBytes = Buffer;

export type NameRule = "dotgit" | "bad_name";

export interface NameProblem {
  readonly rule: NameRule;
  readonly detail: string;
}

/**
 * What is wrong with one tree entry's name, by fsck's rules: empty, `.`, `..`, a `/` inside, or a
 * spelling of `.git`; null when nothing is.
 *
 * @example nameProblem(Buffer.from(".GIT")) → { rule: "dotgit", … }
 * @example nameProblem(Buffer.from("git~1")) → { rule: "dotgit", … }
 * @example nameProblem(Buffer.from("src.ts")) → null
 */
export function nameProblem(name: NameBytes): NameProblem | null {
  if (name.length === 0) return { rule: "bad_name", detail: "an empty name" };
  if (name.includes(0)) return { rule: "bad_name", detail: "a NUL byte in a name" };
  if (name.includes(0x2f)) return { rule: "bad_name", detail: `a "/" inside one name: git stores each directory as a tree of its own` };
  const text = name.toString("latin1");
  if (text === "." || text === "..") return { rule: "bad_name", detail: `"${text}" as a name: it would point outside its directory` };
  if (isDotGit(name))
    return {
      rule: "dotgit",
      detail: "a spelling of .git: git's own directory on some file system (case, 8.3 short name, trailing dots or spaces, ignored Unicode, or after a \\)",
    };
  return null;
}

/** `.git` in any spelling a file system could take for it (`git~1`, `.GIT`, `.git.`, `.g\u200cit`, `x\.git`). */
export function isDotGit(name: NameBytes): boolean {
  return isHfsDot(name, "git") || backslashParts(name).some(isNtfsDotGit);
}

/** `.gitmodules` in any spelling (`.GitModules`, `gitmod~1`, `gi7eba~2`, `.gitmodules.`, …). */
export function isDotGitmodules(name: NameBytes): boolean {
  return isHfsDot(name, "gitmodules") || backslashParts(name).some((part) => isNtfsDot(part, "gitmodules", "gi7eba"));
}

/** `.gitattributes` in any spelling (`.GITATTRIBUTES`, `gitatt~1`, `gi7d29~1`, …). */
export function isDotGitattributes(name: NameBytes): boolean {
  return isHfsDot(name, "gitattributes") || backslashParts(name).some((part) => isNtfsDot(part, "gitattributes", "gi7d29"));
}

/** The name, and each part of it after a `\` (what Windows reads as separate components). */
function backslashParts(name: NameBytes): NameBytes[] {
  const parts = [name];
  for (let at = name.indexOf(0x5c); at !== -1; at = name.indexOf(0x5c, at + 1)) parts.push(name.subarray(at + 1));
  return parts;
}

// Code points HFS+ ignores entirely when it compares names (utf8.c `next_hfs_char`).
const HFS_IGNORED = new Set([0x200c, 0x200d, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x206a, 0x206b, 0x206c, 0x206d, 0x206e, 0x206f, 0xfeff]);

/**
 * `.<needle>` as HFS+ compares names: case-insensitive for ASCII, the ignored code points
 * skipped, and nothing but the end of the name (or a malformed UTF-8 sequence, which HFS+ would
 * not store as given) after it.
 */
function isHfsDot(name: NameBytes, needle: string): boolean {
  const chars = hfsChars(name);
  if (chars.next() !== 0x2e) return false;
  for (const expected of needle) {
    const c = chars.next();
    if (c === null || c > 127 || String.fromCharCode(c).toLowerCase() !== expected) return false;
  }
  const rest = chars.next();
  return rest === null || rest === 0x2f;
}

/** Code points of a UTF-8 name with the HFS+-ignored ones left out; null at the end or at malformed UTF-8. */
function hfsChars(name: NameBytes): { next(): number | null } {
  let at = 0;
  const decode = (): number | null => {
    const b = name[at];
    if (b === undefined) return null;
    const length = b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
    if (length === 0 || at + length > name.length) return null;
    let code = length === 1 ? b : b & (0xff >> (length + 1));
    for (let i = 1; i < length; i++) {
      const next = name[at + i]!;
      if ((next & 0xc0) !== 0x80) return null;
      code = (code << 6) | (next & 0x3f);
    }
    const shortest = [0, 0, 0x80, 0x800, 0x10000][length]!;
    if (code < shortest || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return null;
    at += length;
    return code;
  };
  return {
    next() {
      for (;;) {
        const code = decode();
        if (code === null || !HFS_IGNORED.has(code)) return code;
      }
    },
  };
}

const lower = (b: number) => (b >= 0x41 && b <= 0x5a ? b + 0x20 : b);
const isAscii = (bytes: NameBytes, at: number, text: string) =>
  [...text].every((ch, i) => bytes[at + i] !== undefined && lower(bytes[at + i]!) === ch.charCodeAt(0));

/** Only dots and spaces from `at` to the end of this component (`\`, `/`, `:` or the end). */
function onlyDotsAndSpaces(bytes: NameBytes, at: number, stops: readonly number[]): boolean {
  for (let i = at; ; i++) {
    const b = bytes[i];
    if (b === undefined || stops.includes(b)) return true;
    if (b !== 0x2e && b !== 0x20) return false;
  }
}

/** path.c `is_ntfs_dotgit`: `.git` or `git~1`, then only dots and spaces up to `\`, `/`, `:` or the end. */
function isNtfsDotGit(bytes: NameBytes): boolean {
  const stops = [0x5c, 0x2f, 0x3a];
  if (bytes[0] === 0x2e && isAscii(bytes, 1, "git")) return onlyDotsAndSpaces(bytes, 4, stops);
  if (isAscii(bytes, 0, "git~1")) return onlyDotsAndSpaces(bytes, 5, stops);
  return false;
}

/**
 * path.c `is_ntfs_dot_generic`: `.<needle>`, its regular 8.3 short name (first six letters, `~1`
 * to `~4`), or its fall-back short name (`<prefix>~<digits>`, the prefix a hash git knows), each
 * followed only by dots and spaces up to `:` or the end.
 */
function isNtfsDot(bytes: NameBytes, needle: string, shortPrefix: string): boolean {
  const stops = [0x3a];
  if (bytes[0] === 0x2e && isAscii(bytes, 1, needle)) return onlyDotsAndSpaces(bytes, needle.length + 1, stops);
  const tilde = bytes[7];
  if (isAscii(bytes, 0, needle.slice(0, 6)) && bytes[6] === 0x7e && tilde !== undefined && tilde >= 0x31 && tilde <= 0x34) {
    return onlyDotsAndSpaces(bytes, 8, stops);
  }
  let sawTilde = false;
  let i = 0;
  for (; i < 8; i++) {
    const b = bytes[i];
    if (b === undefined) return false;
    if (sawTilde) {
      if (b < 0x30 || b > 0x39) return false;
    } else if (b === 0x7e) {
      const digit = bytes[++i];
      if (digit === undefined || digit < 0x31 || digit > 0x39) return false;
      sawTilde = true;
    } else if (i >= 6 || b & 0x80 || lower(b) !== shortPrefix.charCodeAt(i)) {
      return false;
    }
  }
  return onlyDotsAndSpaces(bytes, i, stops);
}
