/**
 * naruto's own folder, where its package.json and examples/ are. The CLI runs from the sources
 * (src/cli/*.ts, under vitest) and from the build (build/cli.js, scripts/build.ts), which sit at
 * different depths, so a path relative to `import.meta.url` would be right in only one of them:
 * this walks up to the first folder that holds a package.json instead.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export function packageRoot(from: string = import.meta.url): string {
  let dir = dirname(fileURLToPath(from));
  while (!existsSync(join(dir, "package.json"))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`naruto's package.json was not found above ${fileURLToPath(from)}: reinstall naruto`);
    dir = up;
  }
  return dir;
}
