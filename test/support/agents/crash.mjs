#!/usr/bin/env node
// Prints some output, leaves a half-made edit, and exits 3.
import { writeFileSync } from "node:fs";
import { defaultPath, writes } from "./fake-lib.mjs";

console.log("crash: starting work");
console.error("crash: something went wrong");
try {
  writeFileSync(defaultPath(writes[0] ?? "."), "half-written\n");
} catch {
  // The directory may not exist; the crash is the point.
}
process.exit(3);
