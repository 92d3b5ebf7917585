/**
 * What the sandbox shows of the system (bwrap.ts): the system folders as they are on this
 * machine, where its resolver file is, and whether a program found on PATH is among them.
 */
import { lstat, readlink, realpath } from "node:fs/promises";
import { dirname, isAbsolute, resolve } from "node:path";

/** Folders of the system a command may need, shown read-only where they exist. */
export const SYSTEM_PATHS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix/store"] as const;

/** What a system path is on this machine: a folder to bind, a symlink to recreate, or absent. */
export type SystemEntry = { readonly path: string; readonly kind: "dir" } | { readonly path: string; readonly kind: "symlink"; readonly target: string };

/** Reads what each system path is here (once per process: the system does not change under naruto). */
export async function readSystem(paths: readonly string[] = SYSTEM_PATHS): Promise<SystemEntry[]> {
  const entries: SystemEntry[] = [];
  for (const path of paths) {
    const info = await lstat(path).catch(() => null);
    if (info === null) continue;
    if (info.isSymbolicLink()) entries.push({ path, kind: "symlink", target: await readlink(path) });
    else if (info.isDirectory()) entries.push({ path, kind: "dir" });
  }
  // Ubuntu's /etc/resolv.conf points into /run: name resolution needs that folder too.
  const resolv = await readlink("/etc/resolv.conf").catch(() => null);
  if (resolv !== null) {
    const target = isAbsolute(resolv) ? resolv : resolve("/etc", resolv);
    if (!target.startsWith("/etc/")) entries.push({ path: dirname(target), kind: "dir" });
  }
  return entries;
}

/** Where the command's resolver file is, after symlinks: bound from the host, or replaced in its own network. */
export interface ResolvConf {
  readonly file: string;
  /** The folder outside /etc that holds it (Ubuntu's /run/systemd/resolve), or null. */
  readonly dir: string | null;
}

/** Reads where /etc/resolv.conf leads (once per process: the system does not change under naruto). */
export async function readResolvConf(): Promise<ResolvConf> {
  const file = await realpath("/etc/resolv.conf").catch(() => "/etc/resolv.conf");
  return { file, dir: file.startsWith("/etc/") ? null : dirname(file) };
}

/** A system program the sandbox shows (under a system path), or null. */
export function shownInside(program: string | null): string | null {
  return program !== null && SYSTEM_PATHS.some((s) => program.startsWith(`${s}/`)) ? program : null;
}
