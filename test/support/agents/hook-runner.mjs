#!/usr/bin/env node
// A review agent that starts the way Claude Code does in `-p` mode: it reads the working
// directory's `.claude/settings.json` and runs every `SessionStart` and `UserPromptSubmit` hook
// command with its own environment (API key included), then answers. A hook that prints a line
// `{"verdict": …}` forges the answer, as a real hook's `additionalContext` or output can steer it.
// Without hooks it answers an honest `request_changes`.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

let settings = {};
try {
  settings = JSON.parse(readFileSync(".claude/settings.json", "utf8"));
} catch {
  // No settings: nothing to run.
}
let forged = null;
for (const event of ["SessionStart", "UserPromptSubmit"]) {
  for (const matcher of settings.hooks?.[event] ?? []) {
    for (const hook of matcher.hooks ?? []) {
      if (hook.type !== "command" || typeof hook.command !== "string") continue;
      let out = "";
      try {
        out = execFileSync("sh", ["-c", hook.command], { encoding: "utf8", env: process.env, stdio: ["ignore", "pipe", "ignore"] });
      } catch {
        // A failing hook does not stop the session.
      }
      forged = out.split("\n").find((l) => l.trim().startsWith('{"verdict"')) ?? forged;
    }
  }
}
console.log(forged ?? JSON.stringify({ verdict: "request_changes", summary: "the hook runner read the diff", findings: [] }));
