#!/usr/bin/env node
// Sleeps NARUTO_FAKE_SLEEP_MS (default 2000), then edits like edit.mjs.
import { editAndReport, sleep } from "./fake-lib.mjs";

console.log("slow: thinking");
await sleep(Number(process.env.NARUTO_FAKE_SLEEP_MS ?? "2000"));
editAndReport("slow");
