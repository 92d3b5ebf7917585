/**
 * What the sandbox shows of a program a profile runs (docs/architecture.md, "mounts show programs, not
 * homes"): the smallest folders that hold it and what it loads, read-only, and its name on PATH
 * as a link to it — never HOME, a folder holding HOME, a folder right inside HOME that is not the
 * program's own (`~/.local`, `~/bin`), naruto's work folder or its state.
 *
 * A program is what `command -v` finds on PATH (or an absolute path), followed to its real file:
 *
 * - inside an npm package (`…/node_modules/<name>` or `…/node_modules/@scope/<name>`): that
 *   package, and every package it depends on (`dependencies`, `optionalDependencies`, found as
 *   Node.js finds them), each folder on its own: a global install nests them in the package, a
 *   project's `node_modules` hoists them beside it (`@openai/codex-linux-x64` beside `@openai/codex`);
 * - inside a Python virtual environment (a `pyvenv.cfg` above its `bin/`): the environment, and
 *   the Python install it was made from (`home =` of `pyvenv.cfg`);
 * - in the `bin/` of an install prefix of its own (`~/.nvm/versions/node/v20/bin/node`): the prefix;
 * - otherwise: the file itself, with its interpreter (a `#!` line, `#!/usr/bin/env node` looked up
 *   on PATH) and, for a script of a Python under a prefix, that prefix's `lib/python*\/site-packages`
 *   (`pip install --user`).
 *
 * System folders are shown anyway (bwrap.ts) and add nothing. Where a program cannot be shown
 * without one of the folders above, naruto refuses it ({@link ProgramNotShownError}) with the
 * `read:` the user can give instead, their own choice.
 */
import { constants } from "node:fs";
import { access, lstat, open, readdir, readFile, realpath } from "node:fs/promises";
import { basename, delimiter, dirname, isAbsolute, join, relative, sep } from "node:path";
import { SYSTEM_PATHS } from "./system-paths.ts";

/** What the sandbox shows for a set of programs. */
export interface ProgramView {
  /** Folders and files bound read-only at their own paths. */
  readonly readOnly: readonly string[];
  /** A program's name on PATH, made in the sandbox as a link to its real file (whose folder is shown). */
  readonly links: readonly ProgramLink[];
}

export interface ProgramLink {
  readonly path: string;
  readonly target: string;
}

export interface ProgramViewOptions {
  /** Where a program named without a slash is looked up: the runner's PATH. */
  readonly path: string | undefined;
  /** The user's home: never shown, nor what holds it, nor a folder right inside it that is not a program's own. */
  readonly home: string | null;
  /** Never shown, nor anything holding them or inside them: naruto's work folder, the repository's git directory. */
  readonly hidden: readonly string[];
}

/** A program cannot be shown without a folder naruto never shows agents; `read` is what the user could give instead. */
export class ProgramNotShownError extends Error {
  override readonly name = "ProgramNotShownError";
  constructor(
    readonly program: string,
    readonly folder: string,
    readonly why: string,
    readonly read: readonly string[],
  ) {
    super(
      `\`${program}\` cannot be shown to agents: it needs ${folder}, which is ${why}. ` +
        (read.length > 0 ? `Give the profile what it needs to read yourself (read: [${read.join(", ")}]), or install it elsewhere.` : "Install it elsewhere."),
    );
  }
}

const NOTHING: ProgramView = { readOnly: [], links: [] };

/**
 * The view of `programs` (names on PATH, or absolute paths); a program not found adds nothing
 * (the pre-run check says it is missing). Throws {@link ProgramNotShownError}.
 *
 * @example executableMounts(["claude", "node"], { path: env.PATH, home: env.HOME ?? null, hidden: [workRoot, commonDir] })
 *   → { readOnly: ["/home/u/.nvm/versions/node/v20.20.0/lib/node_modules/@anthropic-ai/claude-code", "/home/u/.nvm/versions/node/v20.20.0"], links: [{ path: "/home/u/.nvm/versions/node/v20.20.0/bin/claude", target: "…/cli.js" }] }
 */
export async function executableMounts(programs: readonly string[], options: ProgramViewOptions): Promise<ProgramView> {
  const readOnly = new Set<string>();
  const links = new Map<string, string>();
  for (const program of programs) {
    const view = await programView(program, options);
    for (const p of view.readOnly) readOnly.add(p);
    for (const l of view.links) links.set(l.path, l.target);
  }
  return { readOnly: outermost([...readOnly]), links: [...links].map(([path, target]) => ({ path, target })) };
}

async function programView(program: string, options: ProgramViewOptions): Promise<ProgramView> {
  const found = await whichProgram(program, options.path);
  if (found === null) return NOTHING;
  const real = await realpath(found).catch(() => null);
  if (real === null) return NOTHING;
  const units = await unitsOf(real, options, 0);
  const links = found !== real && !isSystem(found) ? [{ path: found, target: real }] : [];
  for (const unit of units) {
    const why = forbidden(unit, options);
    if (why !== null) throw new ProgramNotShownError(program, unit.path, why, suggestedRead(unit, real, options));
  }
  return { readOnly: units.map((u) => u.path), links };
}

/** A folder (or file) to show, and what made it one: a prefix must not be a folder right inside HOME. */
interface Unit {
  readonly path: string;
  readonly kind: "package" | "venv" | "prefix" | "file" | "site-packages";
}

/** The units that hold `real` and what it loads. */
async function unitsOf(real: string, options: ProgramViewOptions, depth: number): Promise<Unit[]> {
  if (isSystem(real) || depth > 3) return [];
  const pkg = packageRootOf(real);
  if (pkg !== null && (await exists(join(pkg, "package.json")))) return (await npmClosure(pkg)).map((path) => ({ path, kind: "package" as const }));
  const venv = await venvOf(real);
  if (venv !== null) {
    const base = await basePythonOf(venv);
    return [{ path: venv, kind: "venv" }, ...(base === null || isSystem(base) ? [] : [{ path: base, kind: "prefix" as const }])];
  }
  const prefix = basename(dirname(real)) === "bin" ? dirname(dirname(real)) : null;
  if (prefix !== null && forbidden({ path: prefix, kind: "prefix" }, options) === null) return [{ path: prefix, kind: "prefix" }];
  const units: Unit[] = [{ path: real, kind: "file" }];
  const interpreter = await interpreterOf(real);
  if (interpreter !== null) {
    const found = await whichProgram(interpreter, options.path);
    const resolved = found === null ? null : await realpath(found).catch(() => null);
    if (resolved !== null) units.push(...(await unitsOf(resolved, options, depth + 1)));
    // A script of a Python, in a prefix's bin/ (pip --user, pip --prefix): its packages are the prefix's.
    if (basename(interpreter).startsWith("python") && prefix !== null)
      units.push(...(await sitePackages(prefix)).map((path) => ({ path, kind: "site-packages" as const })));
  }
  return units;
}

/** `…/node_modules/<name>` or `…/node_modules/@scope/<name>` holding `path`, the innermost; null outside one. */
function packageRootOf(path: string): string | null {
  const parts = path.split(sep);
  const at = parts.lastIndexOf("node_modules");
  if (at < 0 || at + 1 >= parts.length - 1) return null;
  const scoped = parts[at + 1]?.startsWith("@") === true;
  const end = at + (scoped ? 3 : 2);
  return end <= parts.length - 1 ? parts.slice(0, end).join(sep) : null;
}

/** The package and every package it needs, as Node.js would find them; each a real path. */
async function npmClosure(root: string): Promise<string[]> {
  const found = new Set<string>([await realpath(root)]);
  const queue = [...found];
  while (queue.length > 0 && found.size < 10_000) {
    const pkg = queue.shift() as string;
    for (const name of await dependenciesOf(pkg)) {
      const dep = await resolvePackage(pkg, name);
      if (dep !== null && !found.has(dep)) {
        found.add(dep);
        queue.push(dep);
      }
    }
  }
  return [...found];
}

async function dependenciesOf(pkg: string): Promise<string[]> {
  try {
    const json = JSON.parse(await readFile(join(pkg, "package.json"), "utf8")) as { dependencies?: unknown; optionalDependencies?: unknown };
    const names = (v: unknown) => (v !== null && typeof v === "object" ? Object.keys(v) : []);
    return [...new Set([...names(json.dependencies), ...names(json.optionalDependencies)])];
  } catch {
    return [];
  }
}

/** Where Node.js finds package `name` from `from`: `node_modules/<name>` of it and of each folder above. */
async function resolvePackage(from: string, name: string): Promise<string | null> {
  for (let dir = from; ; dir = dirname(dir)) {
    if (basename(dir) !== "node_modules") {
      const candidate = join(dir, "node_modules", name);
      if (await exists(join(candidate, "package.json"))) return realpath(candidate).catch(() => null);
    }
    if (dirname(dir) === dir) return null;
  }
}

/** The virtual environment whose `bin/` holds `path` (a `pyvenv.cfg` beside that `bin/`). */
async function venvOf(path: string): Promise<string | null> {
  const bin = dirname(path);
  if (basename(bin) !== "bin" && basename(bin) !== "Scripts") return null;
  const root = dirname(bin);
  return (await exists(join(root, "pyvenv.cfg"))) ? root : null;
}

/** The Python install a virtual environment was made from: the folder above `home =` of its `pyvenv.cfg`. */
async function basePythonOf(venv: string): Promise<string | null> {
  const text = await readFile(join(venv, "pyvenv.cfg"), "utf8").catch(() => "");
  const home = /^\s*home\s*=\s*(.+?)\s*$/m.exec(text)?.[1];
  if (home === undefined || !isAbsolute(home)) return null;
  const real = await realpath(home).catch(() => null);
  return real === null ? null : basename(real) === "bin" ? dirname(real) : real;
}

/** What runs a script: the program its `#!` line names (`#!/usr/bin/env node`: `node`); null for a binary. */
async function interpreterOf(path: string): Promise<string | null> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch(() => null);
  if (handle === null) return null;
  try {
    const head = Buffer.alloc(256);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const line = head.subarray(0, bytesRead).toString("utf8").split("\n")[0] ?? "";
    if (!line.startsWith("#!")) return null;
    const [interpreter, ...args] = line.slice(2).trim().split(/\s+/);
    if (interpreter === undefined || !isAbsolute(interpreter)) return null;
    return (basename(interpreter) === "env" ? args.find((a) => !a.startsWith("-")) : interpreter) ?? null;
  } finally {
    await handle.close();
  }
}

/** `<prefix>/lib/python*\/site-packages` that exist. */
async function sitePackages(prefix: string): Promise<string[]> {
  const lib = join(prefix, "lib");
  const names = await readdir(lib).catch(() => [] as string[]);
  const found: string[] = [];
  for (const name of names.filter((n) => n.startsWith("python")).sort()) {
    const site = join(lib, name, "site-packages");
    if (await exists(site)) found.push(site);
  }
  return found;
}

/** Why `unit` may not be shown; null when it may. */
function forbidden(unit: Unit, options: ProgramViewOptions): string | null {
  const { path } = unit;
  const home = options.home === "" || options.home === "/" ? null : options.home;
  if (home !== null && isWithin(home, path)) return path === home ? "your home folder" : "a folder holding your home folder";
  // A folder right inside HOME that is not a program's own holds far more than it (`~/.local`, `~/bin`).
  if (home !== null && dirname(path) === home && (unit.kind === "prefix" || unit.kind === "site-packages"))
    return `a folder of your home folder that holds more than the program (${basename(path)})`;
  for (const hidden of options.hidden) {
    if (isWithin(path, hidden)) return `inside ${hidden}, naruto's own`;
    if (isWithin(hidden, path)) return `a folder holding ${hidden}, naruto's own`;
  }
  return null;
}

/**
 * The `read:` a user could give instead of a folder naruto will not show: the program's folder, or
 * its file where that folder is not to be shown either; none for what lies in naruto's own folders.
 */
function suggestedRead(unit: Unit, real: string, options: ProgramViewOptions): string[] {
  if (options.hidden.some((h) => isWithin(real, h) || isWithin(h, real))) return [];
  const folder = dirname(real);
  return [forbidden({ path: folder, kind: "file" }, options) === null && unit.path !== folder ? folder : real];
}

/** Drops every path inside another of the list. */
function outermost(paths: readonly string[]): string[] {
  return paths.filter((p) => !paths.some((q) => q !== p && isWithin(p, q)));
}

/** Where `name` is found on `path` (a `command -v`), or null. A relative path is never found. */
export async function whichProgram(name: string, path: string | undefined): Promise<string | null> {
  if (name.includes("/")) return isAbsolute(name) ? name : null;
  for (const dir of (path ?? "").split(delimiter)) {
    if (dir === "" || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    if (
      await access(candidate, constants.X_OK).then(
        () => true,
        () => false,
      )
    ) {
      if ((await lstat(candidate).catch(() => null))?.isDirectory() === true) continue;
      return candidate;
    }
  }
  return null;
}

function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

function isSystem(path: string): boolean {
  return SYSTEM_PATHS.some((s) => path === s || path.startsWith(`${s}/`));
}

function isWithin(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}
