/**
 * Where a program a profile runs is installed, so the sandbox can show it read-only: the PATH
 * folder it is found in (where its symlink lives), and the folder its real file is in — an npm
 * package's folder, or for a file in a `bin/` folder, that folder's parent (a Python venv, a
 * Node.js prefix with its `lib/node_modules`). System folders are shown anyway and are skipped.
 */
import { access, constants, realpath } from "node:fs/promises";
import { basename, delimiter, dirname, isAbsolute, join } from "node:path";
import { SYSTEM_PATHS } from "./bwrap.ts";

export async function executableMounts(names: readonly string[], path: string | undefined): Promise<string[]> {
  const mounts = new Set<string>();
  for (const name of names) {
    const found = await whichProgram(name, path);
    if (found === null) continue;
    const real = await realpath(found).catch(() => found);
    const home = basename(dirname(real)) === "bin" ? dirname(dirname(real)) : dirname(real);
    for (const dir of [dirname(found), home]) if (!isSystem(dir)) mounts.add(dir);
  }
  return [...mounts];
}

/** Where `name` is found on `path` (a `command -v`), or null. A relative path is never found. */
export async function whichProgram(name: string, path: string | undefined): Promise<string | null> {
  if (name.includes("/")) return isAbsolute(name) ? name : null;
  for (const dir of (path ?? "").split(delimiter)) {
    if (dir === "" || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    if (await access(candidate, constants.X_OK).then(() => true, () => false)) return candidate;
  }
  return null;
}

function isSystem(dir: string): boolean {
  return SYSTEM_PATHS.some((s) => dir === s || dir.startsWith(`${s}/`));
}
