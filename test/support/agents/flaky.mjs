#!/usr/bin/env node
// Fails on attempt 1 (exit 1), edits like edit.mjs on any later attempt.
import { attempt, editAndReport } from "./fake-lib.mjs";

if (attempt === 1) {
  console.error("flaky: failing on attempt 1");
  process.exit(1);
}
editAndReport("flaky");
