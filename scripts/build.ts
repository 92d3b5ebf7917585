/**
 * Builds the CLI and the App into `build/` (gitignored), so that `naruto` and `npm start` run
 * JavaScript, not the TypeScript sources through tsx at every start:
 *
 *   build/cli.js          src/cli/main.ts (bin/naruto.js imports its `main`)
 *   build/app.js          src/app/main.ts (`npm start`)
 *   build/serverless.js   src/app/serverless.ts (`handle`, for function hosts: `import { handle } from "naruto/serverless"`)
 *   build/demo-agent.mjs  read by path at run time (DEMO_AGENT_PATH resolves next to the bundle)
 *   build/inputs.json     when it was built and from which sources: bin/naruto.js rebuilds when
 *                         one of them is newer, so a checkout never runs stale code
 *
 * `npm ci` and `npm pack` run it (the `prepare` script), `npm run build` too. The dependencies
 * (but the workflow parser, below) stay outside the bundles (they are naruto's `dependencies`, installed next to it): bundling
 * them made `naruto --help` slower (1.5 MB to parse instead of 0.4 MB, commander aside nothing
 * of them is needed for it), and probot's logger (pino) loads files of its own by path.
 *
 * Several processes may build at once (tests spawn bin/naruto.js in parallel right after an edit
 * of src/): each builds into a folder of its own and renames the files into build/, so a reader
 * sees one build's file or another's, never half of one.
 */
import { build, type Plugin } from "esbuild";
import { copyFile, mkdir, mkdtemp, readdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { NODE_ESM_BUNDLE } from "./esbuild-node.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const BUILD_DIR = join(root, "build");

/** What bin/naruto.js reads to tell whether the build is older than the sources. */
export interface BuildInputs {
  /** Date.now() when the build started, less a margin for the file system's coarse clock. */
  readonly builtAt: number;
  /** The files the bundles were made from, relative to the repository, sorted. */
  readonly inputs: readonly string[];
}

const ENTRIES = { cli: "src/cli/main.ts", app: "src/app/main.ts", serverless: "src/app/serverless.ts" } as const;

/**
 * Development dependencies the CLI runs, bundled into its chunks: GitHub's workflow parser
 * (`naruto doctor` judges a workflow with it) and what it imports but naruto does not. It cannot
 * stay outside: it imports its JSON schemas without `with { type: "json" }`, which Node 20
 * refuses, and esbuild reads them itself. It only loads when doctor runs.
 */
const BUNDLED = /^(@actions\/workflow-parser|@actions\/expressions|cronstrue)(\/|$)/;

/** Every other package stays outside the bundles (what `packages: "external"` does), in naruto's dependencies. */
const dependenciesOutside: Plugin = {
  name: "dependencies-outside",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) =>
      BUNDLED.test(args.path) || args.path.startsWith("node:") ? undefined : { path: args.path, external: true },
    );
  },
};
const COPIED = { "demo-agent.mjs": "src/agent/demo-agent.mjs" } as const;
/** A file written up to this long after the build started may carry an older mtime. */
const CLOCK_MARGIN_MS = 50;

/**
 * Builds into `out`. `prune` removes what an earlier build left there (chunks of older
 * sources): right for `npm run build` and `prepare`, wrong for bin/naruto.js's rebuild, since
 * a naruto started from the earlier build may still import its chunks.
 */
export async function buildAll({ out = BUILD_DIR, prune }: { out?: string; prune: boolean }): Promise<BuildInputs> {
  const builtAt = Date.now() - CLOCK_MARGIN_MS;
  await mkdir(out, { recursive: true });
  const temp = await mkdtemp(join(out, ".tmp-"));
  try {
    const result = await build({
      ...NODE_ESM_BUNDLE,
      absWorkingDir: root,
      metafile: true,
      entryPoints: Object.entries(ENTRIES).map(([name, path]) => ({ in: path, out: name })),
      outdir: temp,
      plugins: [dependenciesOutside],
      // A command's code, and the packages it imports, load when the command runs (main.ts
      // imports each with `await import`): without chunks, esbuild would hoist every package's
      // import (zod, yaml) into cli.js and `naruto --help` would load them all.
      splitting: true,
      chunkNames: "chunk-[hash]",
    });
    for (const [name, from] of Object.entries(COPIED)) await copyFile(join(root, from), join(temp, name));
    const inputs: BuildInputs = { builtAt, inputs: [...Object.keys(result.metafile.inputs), ...Object.values(COPIED)].sort() };
    await writeFile(join(temp, "inputs.json"), `${JSON.stringify(inputs, null, 2)}\n`);
    const files = await readdir(temp);
    if (prune) {
      for (const old of await readdir(out)) if (!old.startsWith(".tmp-") && !files.includes(old)) await rm(join(out, old), { recursive: true, force: true });
    }
    // Chunks before the entries that import them, inputs.json last: until it is renamed, the
    // build still counts as stale.
    const order = (f: string) => (f.startsWith("chunk-") ? 0 : f === "inputs.json" ? 2 : 1);
    for (const file of files.sort((x, y) => order(x) - order(y))) await rename(join(temp, file), join(out, file));
    return inputs;
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { inputs } = await buildAll({ prune: !process.argv.includes("--keep-chunks") });
  if (!process.argv.includes("--quiet")) console.log(`build/: ${Object.keys(ENTRIES).join(".js, ")}.js from ${inputs.length} files`);
}
