#!/usr/bin/env node
// The CLI runs the TypeScript sources directly through tsx, so a fresh clone plus `npm ci` is
// enough: there is no build step that could be stale.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
