#!/usr/bin/env node
// Changes nothing and exits 0.
import { writeResult } from "./fake-lib.mjs";

console.log("noop: nothing to do");
writeResult({ summary: "nothing to do" });
