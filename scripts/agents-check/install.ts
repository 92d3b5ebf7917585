/**
 * The install cache of the checked CLIs: each pinned `pkg@version` in a folder of its own,
 * `${XDG_CACHE_HOME:-$HOME/.cache}/naruto/agents/<pkg with / as ->@<version>`, installed with
 * `npm install --prefix … --no-save`: outside the repository and never a dependency of naruto.
 * A version is installed once; a folder is complete or absent (the install goes to a sibling
 * folder that is renamed into place), so a killed install is redone, not half-used.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface InstalledCli {
  /** The install's folder: what the sandbox must show read-only (its bin links point inside). */
  readonly dir: string;
  /** `node_modules/.bin`, for PATH. */
  readonly bin: string;
  /** Whether this run installed it (false: it was in the cache). */
  readonly installed: boolean;
}

export class InstallError extends Error {
  override readonly name = "InstallError";
}

export function agentsCacheRoot(env: Readonly<Record<string, string | undefined>>): string {
  const xdg = env.XDG_CACHE_HOME;
  const cache = xdg !== undefined && isAbsolute(xdg) ? xdg : join(env.HOME ?? "/root", ".cache");
  return join(cache, "naruto", "agents");
}

export function installDir(root: string, pkg: string, version: string): string {
  return join(root, `${pkg.replace("/", "-")}@${version}`);
}

export async function installCli(input: {
  readonly root: string;
  readonly pkg: string;
  readonly version: string;
  readonly env: NodeJS.ProcessEnv;
}): Promise<InstalledCli> {
  const dir = installDir(input.root, input.pkg, input.version);
  const bin = join(dir, "node_modules", ".bin");
  if ((await installedVersion(dir, input.pkg)) === input.version) return { dir, bin, installed: false };
  await mkdir(input.root, { recursive: true });
  const partial = `${dir}.partial-${randomBytes(4).toString("hex")}`;
  await mkdir(partial);
  try {
    await run(
      "npm",
      ["install", "--prefix", partial, "--no-save", "--no-package-lock", "--no-audit", "--no-fund", "--loglevel=error", `${input.pkg}@${input.version}`],
      {
        cwd: partial,
        env: input.env,
        maxBuffer: 16 * 1024 * 1024,
      },
    );
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    const stderr =
      typeof error === "object" && error !== null && "stderr" in error ? String(error.stderr).trim().split("\n").slice(-3).join(" | ") : String(error);
    throw new InstallError(`npm could not install ${input.pkg}@${input.version} (${stderr}); check that the npm registry is reachable`, { cause: error });
  }
  // npm's own links point inside the folder (relative), so the rename keeps them working.
  await rm(dir, { recursive: true, force: true });
  await rename(partial, dir);
  if ((await installedVersion(dir, input.pkg)) !== input.version)
    throw new InstallError(`npm installed something else than ${input.pkg}@${input.version} in ${dir}`);
  return { dir, bin, installed: true };
}

async function installedVersion(dir: string, pkg: string): Promise<string | null> {
  const text = await readFile(join(dir, "node_modules", pkg, "package.json"), "utf8").catch(() => null);
  if (text === null) return null;
  const version: unknown = (JSON.parse(text) as { version?: unknown }).version;
  return typeof version === "string" ? version : null;
}
