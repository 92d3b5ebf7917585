#!/usr/bin/env node
// A planner agent for tests: writes a two-item plan (b after a) to the file its prompt names.
import { readFileSync, writeFileSync } from "node:fs";

const prompt = readFileSync(process.env.NARUTO_PROMPT_FILE ?? "", "utf8");
const file = /^Write the plan as YAML to this file \(outside the repository\): (.+)$/m.exec(prompt)?.[1];
if (!file) {
  console.error("fake-planner: the prompt names no plan file");
  process.exit(1);
}
writeFileSync(
  file,
  [
    "version: 1",
    "title: Planned by the fake planner",
    "items:",
    "  - { id: a, title: A, writes: [src/a/] }",
    "  - { id: b, title: B, writes: [src/b/], after: [a] }",
    "",
  ].join("\n"),
);
