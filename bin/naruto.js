#!/usr/bin/env node
// The CLI runs the bundle build/cli.js (scripts/build.ts), rebuilt first when the sources are
// newer (fresh-build.js). Nothing else is imported here, so that `naruto --help` loads little.
import { freshBuild } from "./fresh-build.js";

if (freshBuild("cli.js")) {
  const { main } = await import("../build/cli.js");
  process.exitCode = await main(process.argv.slice(2));
} else {
  process.exitCode = 2;
}
