/**
 * Builds the Action's committed bundle, `dist/` (STYLE.md 12): one esbuild bundle of
 * `src/action/main.ts` with every dependency in it, so the runner needs no `npm install`.
 *
 *   node --import tsx scripts/build-action.ts           writes dist/
 *   node --import tsx scripts/build-action.ts --check   rebuilds in a temporary folder and exits 1
 *                                                       when dist/ differs (CI)
 *
 * The output is deterministic: the same sources and lock file give the same bytes (paths in it
 * are relative to the repository, nothing carries a date).
 */
import { build } from "esbuild";
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { NODE_ESM_BUNDLE } from "./esbuild-node.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const DIST = join(root, "dist");

/** Writes the bundle and the files it reads at run time into `out`. */
async function buildInto(out: string): Promise<void> {
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  const result = await build({
    absWorkingDir: root,
    metafile: true,
    entryPoints: ["src/action/main.ts"],
    outfile: join(out, "index.js"),
    // The runner's node24, and node 20 where the tests run the bundle.
    ...NODE_ESM_BUNDLE,
    legalComments: "external",
  });
  await writeFile(join(out, "licenses.txt"), await licenses(Object.keys(result.metafile.inputs)));
  // Read by path at run time (DEMO_AGENT_PATH resolves next to the bundle).
  await copyFile(join(root, "src/agent/demo-agent.mjs"), join(out, "demo-agent.mjs"));
  // dist/ is ESM wherever it is copied, with or without the repository's package.json.
  await writeFile(join(out, "package.json"), `${JSON.stringify({ type: "module", private: true }, null, 2)}\n`);
}

/** The license of every package in the bundle, as its MIT and ISC terms ask, sorted by name. */
async function licenses(inputs: readonly string[]): Promise<string> {
  const packages = new Set<string>();
  for (const input of inputs) {
    const match = /^node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match?.[1]) packages.add(match[1]);
  }
  const parts: string[] = [];
  for (const name of [...packages].sort()) {
    const dir = join(root, "node_modules", name);
    const pkg = JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as { version?: string; license?: string };
    const file = (await readdir(dir)).filter((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f)).sort()[0];
    const text = file ? (await readFile(join(dir, file), "utf8")).trim() : `(no license file; package.json says ${pkg.license ?? "nothing"})`;
    parts.push(`${name}@${pkg.version ?? "?"} (${pkg.license ?? "unknown"})\n\n${text}`);
  }
  return `Third-party software bundled in dist/index.js\n\n${parts.join("\n\n----------------------------------------\n\n")}\n`;
}

async function differences(a: string, b: string): Promise<string[]> {
  const names = [...new Set([...(await readdir(a).catch(() => [])), ...(await readdir(b).catch(() => []))])].sort();
  const out: string[] = [];
  for (const name of names) {
    const [x, y] = await Promise.all([readFile(join(a, name)).catch(() => null), readFile(join(b, name)).catch(() => null)]);
    if (x === null) out.push(`dist/${name} is missing`);
    else if (y === null) out.push(`dist/${name} should not be there`);
    else if (!x.equals(y)) out.push(`dist/${name} differs from a fresh build`);
  }
  return out;
}

if (process.argv.includes("--check")) {
  const temp = await mkdtemp(join(tmpdir(), "naruto-dist-"));
  try {
    await buildInto(join(temp, "dist"));
    const problems = await differences(join(temp, "dist"), DIST);
    if (problems.length > 0) {
      console.error(`${problems.join("\n")}\nRun \`node --import tsx scripts/build-action.ts\` and commit dist/.`);
      process.exitCode = 1;
    } else {
      console.log("dist/ is up to date");
    }
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
} else {
  await buildInto(DIST);
  const size = (await readFile(join(DIST, "index.js"))).length;
  console.log(`dist/index.js: ${(size / 1024).toFixed(0)} KiB`);
}
