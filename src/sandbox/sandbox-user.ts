/**
 * Who an untrusted command runs as when naruto is root (docs/architecture.md, "root is never root
 * inside"): an unprivileged host user of its own, never root and never a user namespace mapped to
 * root. A command running as root, even without capabilities and inside a user namespace mapped
 * to root, owns every root file on the read-only binds (`/etc/shadow`, a runner's tokens, a
 * kubeconfig): it could read them all.
 *
 * How: bubblewrap starts as root and makes the mounts (so that folders only root can cross, such
 * as `/root/.cache/naruto/…` or a repository under `/root`, can still be shown), keeping only the
 * capabilities to change users; then `setpriv` (util-linux) becomes the sandbox user, with no
 * supplementary groups, no capabilities left in any set (the bounding set emptied too), under the
 * no-new-privileges flag bubblewrap sets, and executes the command. The command is that user on
 * the host: root's files are other people's files to it. Its folders (work directory, HOME, the
 * files it writes for naruto) are handed to that user before it starts ({@link handOver}).
 *
 * A sandbox of the command's own still works: Codex CLI runs each of its commands in a nested
 * bwrap, which makes a user namespace mapping its uid, as any ordinary user's bwrap does.
 */
import { spawn } from "node:child_process";
import { chmod, lchown } from "node:fs/promises";
import { dirname } from "node:path";

/** Who the command runs as on the host: naruto's own user (null), or this unprivileged one. */
export type SandboxUser = { readonly uid: number; readonly gid: number } | null;

/**
 * The user a command runs as when naruto is root: a uid and gid of their own, for no account
 * (so the command owns no one's files), below 65534 (`nobody`, the overflow id) and within the
 * 65,536 ids a container's user namespace usually maps.
 */
export const SANDBOX_USER = { uid: 64_999, gid: 64_999 } as const;

/** The user for a naruto running as `uid` (`process.getuid()`, undefined off POSIX). */
export function sandboxUserFor(uid: number | undefined): SandboxUser {
  return uid === 0 ? SANDBOX_USER : null;
}

/** Where `setpriv` is: part of util-linux, on every Debian and Ubuntu system. */
export const SETPRIV = "/usr/bin/setpriv";

/**
 * bubblewrap's capability flags for the command: none, or as root only those `setpriv` needs to
 * become the sandbox user (it drops them with the change of user and empties the bounding set).
 */
export function capabilityArgs(user: SandboxUser): string[] {
  return user === null ? ["--cap-drop", "ALL"] : ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"];
}

/** What runs `command` as `user` inside the sandbox (nothing for naruto's own user). */
export function becomeUser(user: SandboxUser): string[] {
  if (user === null) return [];
  return [SETPRIV, `--reuid=${user.uid}`, `--regid=${user.gid}`, "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--"];
}

/**
 * The folders above `paths` that bubblewrap makes in the sandbox's root (it makes them 0700, for
 * its own user only): made 0755 first, so that the sandbox user can reach what is bound below
 * them. Folders within `shown` (the system, bound whole) are left alone.
 */
export function parentDirs(paths: readonly string[], shown: readonly string[]): string[] {
  const dirs = new Set<string>();
  for (const path of paths) {
    const chain: string[] = [];
    for (let dir = dirname(path); dir !== "/" && dir !== "."; dir = dirname(dir)) chain.unshift(dir);
    for (const dir of chain) if (!shown.some((s) => dir === s || dir.startsWith(`${s}/`))) dirs.add(dir);
  }
  return [...dirs];
}

/**
 * Gives the command's folders to the sandbox user: `trees` with everything in them (the work
 * directory, its HOME), `files` alone (the files naruto made for the command to write). Links are
 * changed themselves, never followed. Each tree can be entered by others (0711): bubblewrap,
 * still root but without the capability to pass by permissions, enters the work directory
 * before it becomes the sandbox user; the work directory's own folder keeps everyone else out.
 * Nothing to do for naruto's own user.
 */
export async function handOver(user: SandboxUser, input: { readonly trees: readonly string[]; readonly files: readonly string[] }): Promise<void> {
  if (user === null) return;
  if (input.trees.length > 0) await chownTrees(user, input.trees);
  for (const tree of input.trees) await chmod(tree, 0o711);
  for (const file of input.files) await lchown(file, user.uid, user.gid);
}

/** `chown -R -h` (one process for a whole checkout: far fewer system calls than a walk from here). */
function chownTrees(user: NonNullable<SandboxUser>, trees: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("chown", ["-R", "-h", `${user.uid}:${user.gid}`, "--", ...trees], {
      stdio: ["ignore", "ignore", "pipe"],
      env: { PATH: "/usr/bin:/bin" },
    });
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`chown of the command's folders failed (exit ${code}): ${stderr.trim()}`))));
  });
}
