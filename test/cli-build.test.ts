/**
 * `naruto` runs the bundle build/cli.js (scripts/build.ts), and bin/naruto.js never runs it stale:
 * when build/ is missing or a source it was built from is newer, it is rebuilt first
 * (bin/fresh-build.js). The second part runs on a copy of the package, so that it can edit the
 * sources without touching this checkout.
 */
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const VERSION = (JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as { version: string }).version;

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function node(args: readonly string[]): Promise<Ran> {
  return new Promise((done) => {
    execFile(process.execPath, args, { cwd: tmpdir() }, (error, stdout, stderr) => {
      done({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const naruto = (root: string, args: readonly string[]) => node([join(root, "bin", "naruto.js"), ...args]);

const builtAt = async (root: string) => (JSON.parse(await readFile(join(root, "build", "inputs.json"), "utf8")) as { builtAt: number }).builtAt;

describe("the built CLI", () => {
  it("prints the version of package.json, through bin/naruto.js and from build/cli.js itself", async () => {
    const bin = await naruto(ROOT, ["--version"]);
    expect(bin.code, bin.stderr).toBe(0);
    expect(bin.stdout.trim()).toBe(VERSION);
    const cli = pathToFileURL(join(ROOT, "build", "cli.js")).href;
    const built = await node([
      "--input-type=module",
      "-e",
      `const { main } = await import(${JSON.stringify(cli)}); process.exitCode = await main(["--version"]);`,
    ]);
    expect(built.code, built.stderr).toBe(0);
    expect(built.stdout.trim()).toBe(VERSION);
  });
});

describe("bin/naruto.js on a checkout whose sources changed", () => {
  let copy = "";
  afterAll(async () => {
    if (copy) await rm(copy, { recursive: true, force: true });
  });

  /** What the build needs of the package, and its installed dependencies (linked). */
  async function packageCopy(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), "naruto-cli-build-"));
    for (const path of ["bin", "src", "package.json", "scripts/build.ts", "scripts/esbuild-node.ts"]) {
      await mkdir(join(dir, path, ".."), { recursive: true });
      await cp(join(ROOT, path), join(dir, path), { recursive: true });
    }
    await symlink(join(ROOT, "node_modules"), join(dir, "node_modules"));
    return dir;
  }

  it("builds a missing build/, keeps a current one, rebuilds after an edit, and refuses to run when the rebuild fails", async () => {
    copy = await packageCopy();

    const first = await naruto(copy, ["--version"]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout.trim()).toBe(VERSION);
    const built = await builtAt(copy);

    const again = await naruto(copy, ["--version"]);
    expect(again.code, again.stderr).toBe(0);
    expect(await builtAt(copy), "a current build/ is not rebuilt").toBe(built);

    const main = join(copy, "src", "cli", "main.ts");
    const source = await readFile(main, "utf8");
    expect(source).toContain("One request, many coding agents in parallel, safely.");
    await writeFile(main, source.replace("One request, many coding agents in parallel, safely.", "Edited after the build."));
    const edited = await naruto(copy, ["--help"]);
    expect(edited.code, edited.stderr).toBe(0);
    expect(edited.stdout).toContain("Edited after the build.");
    expect(await builtAt(copy)).toBeGreaterThan(built);

    await writeFile(main, `${source}\nexport const broken = ;\n`);
    const broken = await naruto(copy, ["--help"]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain("src/cli/main.ts changed since the last build, and rebuilding build/ failed");
    expect(broken.stdout).toBe("");
  });
});
