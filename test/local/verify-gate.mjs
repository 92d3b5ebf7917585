#!/usr/bin/env node
// The queue verify command of the bisection test: `verify-gate.mjs REPO FILE` fails when FILE
// exists in the candidate. First it waits until no item of REPO's mission is still running, so
// that the checkpoints that arrive meanwhile wait for the queue together and form one batch.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

const repo = process.argv[2] ?? ".";
const git = (...args) => execFileSync("git", ["-C", repo, ...args], { encoding: "utf8" }).trim();
const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const deadline = Date.now() + 30_000;
for (;;) {
  const [ref] = git("for-each-ref", "--format=%(refname)", "refs/naruto/missions/").split("\n");
  // One record per item (src/mission/records.ts): items/NNNN/NNNNN.json.
  const files = git("ls-tree", "-r", "--name-only", ref, "--", "items/").split("\n").filter(Boolean);
  const items = files.map((file) => JSON.parse(git("cat-file", "blob", `${ref}:${file}`)));
  const open = items.filter((i) => ["pending", "ready", "running"].includes(i.status));
  if (open.length === 0 || Date.now() > deadline) break;
  pause(50);
}
const poison = process.argv[3] ?? "";
if (existsSync(poison)) {
  console.error(`verify: ${poison} must not exist`);
  process.exit(1);
}
console.log("verify: ok");
