// naruto runs the JavaScript of build/ (scripts/build.ts), made by `npm ci` (the `prepare`
// script). In a checkout, src/ may have changed since: running build/ then would run stale
// code, unnoticed. So before build/ runs, this compares the mtime of every source it was built
// from (build/inputs.json) with the time of the build, and when one is newer, or build/ is
// missing, rebuilds it (esbuild, about a second with tsx's start) and goes on. Rebuilding was
// chosen over running the sources through tsx: one slow start after an edit instead of every
// start, and tests that spawn bin/naruto.js see the same output either way. The check itself
// is one small JSON file and a stat per source (about 2 ms). An installed package ships build/
// without src/: there is nothing newer to find, and nothing is rebuilt.
//
//   node bin/fresh-build.js   the check alone (`npm start` runs it first, as `prestart`)
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));

/** Why build/ cannot run as it is (missing, or older than a source), or null when it can. */
export function staleness(entry) {
  if (!existsSync(join(root, "build", entry))) return `build/${entry} is missing`;
  let built;
  try {
    built = JSON.parse(readFileSync(join(root, "build", "inputs.json"), "utf8"));
  } catch {
    return "build/inputs.json is missing";
  }
  if (typeof built?.builtAt !== "number" || !Array.isArray(built.inputs)) return "build/inputs.json is not one scripts/build.ts wrote";
  for (const input of built.inputs) {
    // A source that is gone no longer matters: the file that imported it changed too.
    const mtime = statSync(join(root, input), { throwIfNoEntry: false })?.mtimeMs ?? 0;
    if (mtime > built.builtAt) return `${input} changed since the last build`;
  }
  return null;
}

/**
 * Makes sure build/`entry` is current, rebuilding it when it is not; returns false (having
 * said why on stderr) when it could not be rebuilt.
 */
export function freshBuild(entry) {
  const stale = staleness(entry);
  if (stale === null) return true;
  const started = Date.now();
  // --keep-chunks: a naruto already running from the previous build may still import its chunks.
  const build = spawnSync(process.execPath, ["--import", "tsx", join(root, "scripts", "build.ts"), "--quiet", "--keep-chunks"], {
    cwd: root,
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8",
  });
  if (build.status !== 0) {
    process.stderr.write(
      `${build.stderr ?? ""}naruto: ${stale}, and rebuilding build/ failed (above). Fix it, or run \`npm ci\` (needs naruto's dev dependencies), then try again.\n`,
    );
    return false;
  }
  if (process.stderr.isTTY) process.stderr.write(`naruto: ${stale}: rebuilt build/ (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!freshBuild("app.js")) process.exitCode = 2;
}
