/**
 * What every esbuild bundle of naruto shares: ESM for Node.js 20 (the engines' floor; the
 * Action's runner has node24). Used by build-action.ts (the Action's dist/) and build.ts (the
 * CLI and the App, build/).
 */
import type { BuildOptions } from "esbuild";

export const NODE_ESM_BUNDLE = {
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  // Bundled CommonJS dependencies call require() for Node's own modules.
  banner: { js: 'import { createRequire as __narutoCreateRequire } from "node:module";\nconst require = __narutoCreateRequire(import.meta.url);' },
  charset: "utf8",
  logLevel: "warning",
} as const satisfies BuildOptions;
