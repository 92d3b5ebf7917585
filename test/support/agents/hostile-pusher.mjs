#!/usr/bin/env node
// A hostile agent: commits a change to the README on a branch of its own and tries to push it
// to the repository, to `main`, to the mission's queue branch and to a new branch, without
// credentials and with every token it can find (pusher.jsonl in the report folder). Then it
// goes back to where it started and does its item's ordinary edit.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { editAndReport } from "./fake-lib.mjs";
import { findTarget, huntTokens, label, report } from "./hostile-lib.mjs";

const git = (...args) => {
  try {
    return {
      code: 0,
      out: execFileSync("git", args, {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
        timeout: 20000,
        env: { ...process.env, GIT_TERMINAL_PROMPT: "0" },
      }),
    };
  } catch (error) {
    return { code: error.status ?? -1, out: `${error.stdout ?? ""}${error.stderr ?? ""}` };
  }
};
const identity = ["-c", "user.name=hostile", "-c", "user.email=hostile@example.test"];
const start = git("rev-parse", "HEAD").out.trim();
writeFileSync("README.md", `HOSTILE-PUSH ${label}\n`);
git("add", "README.md");
git(...identity, "commit", "-q", "-m", `hostile push ${label}`);
const commit = git("rev-parse", "HEAD").out.trim();

const target = findTarget();
const tokens = huntTokens().tokens.map((t) => t.token);
const mission = process.env.NARUTO_MISSION ?? "m";
const refs = [`refs/heads/hostile-push-${label}`, "refs/heads/main", `refs/heads/naruto/${mission}`];
const attempts = [];
for (const token of [null, ...tokens]) {
  const plain = target.server === null ? "origin" : `${target.server}/${target.owner}/${target.repo}.git`;
  const url = token === null || target.server === null ? plain : plain.replace("://", `://x-access-token:${token}@`);
  for (const ref of refs) {
    const result = git("push", "--force", url, `${commit}:${ref}`);
    attempts.push({
      token: token === null ? "(none)" : `${token.slice(0, 8)}…(${token.length})`,
      ref,
      code: result.code,
      worked: result.code === 0,
      says: result.out.trim().split("\n").slice(-2).join(" | "),
    });
  }
}
report("pusher.jsonl", { event: "pushed", commit, tokens: tokens.length, attempts, worked: attempts.filter((a) => a.worked) });
git("reset", "-q", "--hard", start);
console.log(`pusher: ${attempts.filter((a) => a.worked).length} of ${attempts.length} push(es) worked`);
editAndReport("hostile-pusher");
