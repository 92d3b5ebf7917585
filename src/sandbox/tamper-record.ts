/**
 * The tamper record (docs/architecture.md), naruto's second line of defence: what an agent could change
 * in the user's repository besides its own files, written down before a mission and after every
 * attempt, and compared. Three kinds of things:
 *
 * - the user's refs (everything outside `refs/heads/naruto/` and `refs/naruto/`) and HEAD;
 * - files of the repository's git folder that run code or steer git: `config`,
 *   `config.worktree`, everything under `hooks/` and `info/`; and the user's startup files that
 *   run code or steer git in every repository (`~/.gitconfig`, shell start-up files, …);
 * - naruto's own refs of the mission (queue, worker branches, kept attempts, state);
 * - when agents run without the sandbox, the user's work tree and index too (`git status`, and
 *   the content of every file it lists): an agent can reach them through `..`.
 *
 * Files are recorded by content hash and mode, refs by object id. Pure comparison (`compare`),
 * reading at the edge (`recordRepository`). A file is read again only when its stat data changed
 * ({@link FileHashes}), since a watch compares the same few files after every attempt.
 */
import { createHash } from "node:crypto";
import type { BigIntStats } from "node:fs";
import { lstat, readdir, readlink } from "node:fs/promises";
import { join } from "node:path";
import { readUntrusted } from "./untrusted-file.ts";
import { gitText, type Git } from "../git/index.ts";

export interface TamperRecord {
  /** The user's refs: name → object id. */
  readonly userRefs: Readonly<Record<string, string>>;
  /** naruto's refs of this mission: name → object id. */
  readonly missionRefs: Readonly<Record<string, string>>;
  /** `HEAD` as the file says it (`ref: refs/heads/main`, or an object id). */
  readonly head: string | null;
  /** Watched files: display path → `mode:sha256` (or `link:target`). */
  readonly files: Readonly<Record<string, string>>;
  /** The user's work tree and index, by path (`git status` line and content); null: not watched. */
  readonly worktree: Readonly<Record<string, string>> | null;
}

/** One difference between two records. */
export interface TamperChange {
  readonly kind: "user_ref" | "head" | "file" | "worktree" | "mission_ref";
  /** The ref name, `HEAD`, or the file's path (`.git/hooks/pre-commit`, `~/.bashrc`). */
  readonly what: string;
  readonly before: string | null;
  readonly after: string | null;
}

/** Start-up files in the user's home that run code or steer git, watched when agents run unsandboxed. */
export const HOME_FILES = [
  ".gitconfig",
  ".config/git/config",
  ".config/git/attributes",
  ".config/git/ignore",
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".profile",
  ".zshrc",
  ".zshenv",
  ".zprofile",
  ".zlogin",
  ".ssh/config",
  ".ssh/authorized_keys",
  ".npmrc",
] as const;

/**
 * The content hash of each watched file, kept with the stat data it was read under, so that a
 * record reads only the files that changed. A kept hash stands only while the file's device,
 * inode, type, mode, size, modification time and change time are all the same and its change
 * time is more than {@link SETTLED_NS} older than the read: whatever writes to a file, renames
 * another over it or changes its mode sets its change time to the clock, which no program but
 * the clock's owner can set back (unlike the modification time, which `touch -d` sets). A file
 * changed within a clock tick of being read is read again every time until it settles.
 */
export interface FileHashes {
  /** The kept hash of `path`, when `info` (read now) says the file has not changed since. */
  get(path: string, info: BigIntStats): string | undefined;
  /** Keeps `hash`, read from the file whose stat data `info` was read at `readAt` (ns since the epoch) before the read. */
  set(path: string, info: BigIntStats, readAt: bigint, hash: string): void;
}

/** How long a file's change time must lie before the read that hashed it for the hash to be kept. */
export const SETTLED_NS = 2_000_000_000n;

export function createFileHashes(settledNs: bigint = SETTLED_NS): FileHashes {
  const kept = new Map<string, { key: string; hash: string }>();
  const keyOf = (i: BigIntStats) => [i.dev, i.ino, i.mode, i.size, i.mtimeNs, i.ctimeNs].join(":");
  return {
    get: (path, info) => {
      const entry = kept.get(path);
      return entry !== undefined && entry.key === keyOf(info) ? entry.hash : undefined;
    },
    set: (path, info, readAt, hash) => {
      if (info.ctimeNs + settledNs < readAt) kept.set(path, { key: keyOf(info), hash });
      else kept.delete(path);
    },
  };
}

/** The refs naruto writes for a mission, by prefix or exact name. */
export function missionRefPatterns(mission: string): { exact: string[]; prefixes: string[] } {
  return {
    exact: [`refs/heads/naruto/${mission}`, `refs/naruto/missions/${mission}`],
    prefixes: [`refs/heads/naruto/${mission}--`, `refs/naruto/attempts/${mission}/`],
  };
}

function isMissionRef(ref: string, mission: string): boolean {
  const p = missionRefPatterns(mission);
  return p.exact.includes(ref) || p.prefixes.some((prefix) => ref.startsWith(prefix));
}

/** A ref of naruto's (any mission's): neither the user's nor, unless it is this mission's, watched. */
function isNarutoRef(ref: string): boolean {
  return ref.startsWith("refs/heads/naruto/") || ref.startsWith("refs/naruto/");
}

/**
 * `for-each-ref` patterns of exactly the mission's refs (missionRefPatterns): the exact names,
 * the attempts folder, and the worker branches at any depth (`*` stops at a slash).
 */
function missionRefReadPatterns(mission: string): string[] {
  const { exact, prefixes } = missionRefPatterns(mission);
  return [...exact, ...prefixes.flatMap((p) => (p.endsWith("/") ? [p] : [`${p}*`, `${p}*/**`]))];
}

/**
 * Reads the record now. One `git for-each-ref` and a walk of a few small folders.
 *
 * @param home the user's home (naruto's own HOME), or null to leave its files out
 * @param userRefs the user's refs as they stand, when the caller knows them: only the mission's
 *   refs are then read, in time that does not grow with other missions' refs or the user's
 */
export async function recordRepository(input: {
  git: Git;
  repoDir: string;
  commonDir: string;
  mission: string;
  home: string | null;
  worktree: boolean;
  userRefs?: Readonly<Record<string, string>>;
  /** The hashes of earlier records of the same watch (default: every file is read). */
  hashes?: FileHashes;
}): Promise<TamperRecord> {
  const { git, repoDir, commonDir, mission } = input;
  const only = input.userRefs === undefined ? [] : missionRefReadPatterns(mission);
  const out = await gitText(git, { args: ["--no-optional-locks", "for-each-ref", "--format=%(objectname) %(refname)", ...only], cwd: repoDir });
  const userRefs: Record<string, string> = { ...input.userRefs };
  const missionRefs: Record<string, string> = {};
  for (const line of out.split("\n")) {
    const space = line.indexOf(" ");
    if (space <= 0) continue;
    const [oid, ref] = [line.slice(0, space), line.slice(space + 1)];
    if (isMissionRef(ref, mission)) missionRefs[ref] = oid;
    else if (!isNarutoRef(ref) && input.userRefs === undefined) userRefs[ref] = oid;
  }
  const files: Record<string, string> = {};
  const hashes = input.hashes ?? null;
  for (const name of ["config", "config.worktree"]) await recordFile(files, join(commonDir, name), `.git/${name}`, hashes);
  for (const folder of ["hooks", "info"]) await recordTree(files, join(commonDir, folder), `.git/${folder}`, hashes);
  if (input.home !== null) for (const name of HOME_FILES) await recordFile(files, join(input.home, name), `~/${name}`, hashes);
  // Without the sandbox an agent could have put a pipe in any of these: nothing read blocks (untrusted-file.ts).
  const headRead = await readUntrusted(join(commonDir, "HEAD"), 64 * 1024);
  const head = headRead.kind === "ok" ? headRead.bytes.toString("utf8").trim() : null;
  return { userRefs, missionRefs, head, files, worktree: input.worktree ? await recordWorktree(git, repoDir) : null };
}

/** Most files of a dirty work tree read for their content; beyond, their size and time stand in. */
const WORKTREE_CONTENT_LIMIT = 2000;

/**
 * The user's work tree and index as `git status` sees them (without taking its lock or
 * refreshing the index), each dirty or untracked path with its content hash: a change to a file
 * that was already dirty shows too.
 */
async function recordWorktree(git: Git, repoDir: string): Promise<Record<string, string>> {
  const { stdout, code } = await git({
    args: ["--no-optional-locks", "status", "--porcelain=v2", "-z", "--untracked-files=all", "--ignore-submodules=none"],
    cwd: repoDir,
    okCodes: [128],
  });
  const out: Record<string, string> = {};
  if (code !== 0) return out;
  const fields = stdout.toString("utf8").split("\0");
  let hashed = 0;
  for (let i = 0; i < fields.length; i++) {
    const line = fields[i] ?? "";
    if (line === "") continue;
    const kind = line[0];
    // `1 XY sub mH mI mW hH hI path`, `2 … path` + orig path, `u … path`, `? path`, `! path`.
    const at = kind === "1" ? 8 : kind === "2" ? 9 : kind === "u" ? 10 : 1;
    const parts = line.split(" ");
    const path = kind === "?" || kind === "!" ? line.slice(2) : parts.slice(at).join(" ");
    if (kind === "2") i++;
    let content = "";
    const full = join(repoDir, path);
    const info = await lstat(full).catch(() => null);
    if (info?.isFile())
      content = hashed++ < WORKTREE_CONTENT_LIMIT && info.size <= 8 * 1024 * 1024 ? await contentHash(full, info.size) : `${info.size}@${info.mtimeMs}`;
    else if (info?.isSymbolicLink()) content = `link:${await readlink(full).catch(() => "")}`;
    out[path] = `${kind === "?" ? "untracked" : parts.slice(0, at).join(" ")}${content ? ` ${content}` : ""}`;
  }
  return out;
}

async function recordFile(files: Record<string, string>, path: string, shown: string, hashes: FileHashes | null): Promise<void> {
  const readAt = BigInt(Date.now()) * 1_000_000n;
  const info = await lstat(path, { bigint: true }).catch(() => null);
  if (info === null) return;
  if (info.isSymbolicLink()) files[shown] = `link:${await readlink(path)}`;
  else if (info.isFile()) files[shown] = `${(info.mode & 0o777n).toString(8)}:${hashes?.get(path, info) ?? (await hashFile(path, info, readAt, hashes))}`;
  else files[shown] = info.isDirectory() ? "directory" : "special";
}

/** A file's content hash; what is not a plain file by the time it is opened says so instead. */
async function contentHash(path: string, limit: number): Promise<string> {
  const read = await readUntrusted(path, Math.max(limit, 1024 * 1024));
  return read.kind === "ok" ? createHash("sha256").update(read.bytes).digest("hex").slice(0, 16) : read.kind;
}

async function hashFile(path: string, info: BigIntStats, readAt: bigint, hashes: FileHashes | null): Promise<string> {
  const hash = await contentHash(path, Number(info.size));
  hashes?.set(path, info, readAt, hash);
  return hash;
}

async function recordTree(files: Record<string, string>, dir: string, shown: string, hashes: FileHashes | null, depth = 0): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => null);
  if (entries === null) return;
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && depth < 4) await recordTree(files, path, `${shown}/${entry.name}`, hashes, depth + 1);
    else await recordFile(files, path, `${shown}/${entry.name}`, hashes);
  }
}

/** What changed from `before` to `after`, sorted by kind and name. */
export function compareRecords(before: TamperRecord, after: TamperRecord): TamperChange[] {
  const changes: TamperChange[] = [];
  const diff = (kind: TamperChange["kind"], a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>) => {
    for (const what of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      const [x, y] = [a[what] ?? null, b[what] ?? null];
      if (x !== y) changes.push({ kind, what, before: x, after: y });
    }
  };
  diff("user_ref", before.userRefs, after.userRefs);
  if (before.head !== after.head) changes.push({ kind: "head", what: "HEAD", before: before.head, after: after.head });
  diff("file", before.files, after.files);
  if (before.worktree !== null && after.worktree !== null) {
    const shown = (r: Readonly<Record<string, string>>) => Object.fromEntries(Object.entries(r).map(([p, v]) => [`work tree: ${p}`, v]));
    const from = changes.length;
    diff("worktree", shown(before.worktree), shown(after.worktree));
    // A path git status does not list is clean: say so rather than "absent".
    for (let i = from; i < changes.length; i++) {
      const c = changes[i]!;
      changes[i] = { ...c, before: c.before ?? "clean", after: c.after ?? "clean" };
    }
  }
  diff("mission_ref", before.missionRefs, after.missionRefs);
  return changes;
}
