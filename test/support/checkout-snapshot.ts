import { lstat, readdir, readFile, readlink } from "node:fs/promises";
import { join, relative } from "node:path";

/**
 * Every byte of a user's checkout that integration must leave alone: each work-tree file
 * (content, symlink target, executable bit), the index file, and HEAD. Compare two snapshots
 * with `toEqual`.
 */
export async function snapshotCheckout(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (at: string): Promise<void> => {
    for (const name of (await readdir(at)).sort()) {
      const full = join(at, name);
      const rel = relative(dir, full);
      if (rel === ".git") continue;
      const stat = await lstat(full);
      if (stat.isDirectory()) await walk(full);
      else if (stat.isSymbolicLink()) out[rel] = `link:${await readlink(full)}`;
      else out[rel] = `mode:${(stat.mode & 0o111) !== 0 ? "x" : "-"}:${(await readFile(full)).toString("base64")}`;
    }
  };
  await walk(dir);
  out[".git/index"] = (await readFile(join(dir, ".git", "index"))).toString("base64");
  out[".git/HEAD"] = await readFile(join(dir, ".git", "HEAD"), "utf8");
  return out;
}
