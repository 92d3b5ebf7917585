/**
 * The Action built from the sources into a folder of its own (action.yml and `dist/`, as
 * scripts/build-action.ts builds the committed bundle), for the Actions simulator to run: a test
 * of the Action's jobs then checks the code as it is, not the last `dist/` someone committed.
 */
import { build } from "esbuild";
import { chmod, copyFile, mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** A fresh folder holding action.yml and the bundle; readable by every user (jobs run as another). */
export async function buildActionFromSources(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "naruto-action-"));
  await mkdir(join(dir, "dist"));
  await build({
    absWorkingDir: ROOT,
    entryPoints: ["src/action/main.ts"],
    outfile: join(dir, "dist", "index.js"),
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    banner: { js: 'import { createRequire as __narutoCreateRequire } from "node:module";\nconst require = __narutoCreateRequire(import.meta.url);' },
    logLevel: "warning",
  });
  await copyFile(join(ROOT, "src/agent/demo-agent.mjs"), join(dir, "dist", "demo-agent.mjs"));
  await writeFile(join(dir, "dist", "package.json"), `${JSON.stringify({ type: "module", private: true })}\n`);
  await copyFile(join(ROOT, "action.yml"), join(dir, "action.yml"));
  for (const path of [dir, join(dir, "dist")]) await chmod(path, 0o755);
  return dir;
}
