/**
 * An npm registry on loopback serving a few packages made here, for the install steps of a
 * workflow run in the Actions simulator: `npm install -g NAME@VERSION` with
 * `npm_config_registry` pointing at it runs npm itself, unchanged, and installs from nothing
 * beyond this machine. Each package is a folder packed with `npm pack`; the registry answers
 * its packument (`GET /NAME`, a scoped name `@scope%2fname` too) and its tarball, with the
 * integrity npm checks.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface RegistryPackage {
  readonly name: string;
  readonly version: string;
  /** Folder whose files become the package (a package.json is written over it). */
  readonly dir: string;
  readonly bin: Readonly<Record<string, string>>;
  /** More files to copy in, by name in the package → path on this machine. */
  readonly extra?: Readonly<Record<string, string>>;
}

export interface NpmRegistry {
  /** `http://127.0.0.1:PORT/`, for `npm_config_registry`. */
  readonly url: string;
  /** What was asked, `METHOD path status`, in order. */
  readonly requests: readonly string[];
  close(): Promise<void>;
}

export async function startNpmRegistry(packages: readonly RegistryPackage[]): Promise<NpmRegistry> {
  const work = await mkdtemp(join(tmpdir(), "npm-registry-"));
  const served = new Map<string, { packument: (base: string) => unknown; tarball: Buffer; file: string }>();
  for (const [index, pkg] of packages.entries()) {
    const dir = join(work, `package-${index}`);
    await cp(pkg.dir, dir, { recursive: true });
    for (const [name, from] of Object.entries(pkg.extra ?? {})) await cp(from, join(dir, name));
    const manifest = { name: pkg.name, version: pkg.version, type: "module", bin: pkg.bin, license: "MIT" };
    await writeFile(join(dir, "package.json"), JSON.stringify(manifest, null, 2));
    const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", work], {
      cwd: dir,
      env: { ...process.env, npm_config_update_notifier: "false" },
    });
    const file = (JSON.parse(stdout) as Array<{ filename: string }>)[0]?.filename.replace(/^@/, "").replace(/\//g, "-") ?? "";
    const tarball = await readFile(join(work, file));
    const integrity = `sha512-${createHash("sha512").update(tarball).digest("base64")}`;
    const shasum = createHash("sha1").update(tarball).digest("hex");
    served.set(pkg.name, {
      file,
      tarball,
      packument: (base) => ({
        name: pkg.name,
        "dist-tags": { latest: pkg.version },
        versions: { [pkg.version]: { ...manifest, _id: `${pkg.name}@${pkg.version}`, dist: { tarball: `${base}-/tarballs/${file}`, integrity, shasum } } },
      }),
    });
  }
  const requests: string[] = [];
  const server = createServer((request, response) => {
    const path = decodeURIComponent((request.url ?? "/").split("?")[0] ?? "/");
    const base = `http://${request.headers.host ?? "127.0.0.1"}/`;
    const answer = (status: number, body: unknown, type = "application/json") => {
      requests.push(`${request.method ?? "GET"} ${path} ${status}`);
      response.writeHead(status, { "content-type": type });
      response.end(Buffer.isBuffer(body) ? body : JSON.stringify(body));
    };
    if (path.startsWith("/-/tarballs/")) {
      const found = [...served.values()].find((p) => p.file === path.slice("/-/tarballs/".length));
      return found === undefined ? answer(404, { error: "not_found" }) : answer(200, found.tarball, "application/octet-stream");
    }
    const found = served.get(path.slice(1));
    return found === undefined ? answer(404, { error: "not_found" }) : answer(200, found.packument(base));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(work, { recursive: true, force: true });
    },
  };
}
