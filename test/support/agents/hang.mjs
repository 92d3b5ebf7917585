#!/usr/bin/env node
// Starts a grandchild that ignores SIGTERM, then both hang forever. The grandchild's pid goes to
// NARUTO_FAKE_PID_FILE (when set) once it ignores SIGTERM, so a test can check it is gone.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";

const grandchild = spawn(process.execPath, ["-e", 'process.on("SIGTERM", () => {}); console.log("grandchild ready"); setInterval(() => {}, 1e6);'], {
  stdio: ["ignore", "pipe", "inherit"],
});
grandchild.stdout.on("data", (chunk) => {
  process.stdout.write(chunk);
  if (String(chunk).includes("ready") && process.env.NARUTO_FAKE_PID_FILE) {
    writeFileSync(process.env.NARUTO_FAKE_PID_FILE, String(grandchild.pid));
  }
});
console.log(`hang: grandchild pid ${grandchild.pid}`);
setInterval(() => {}, 1e6);
