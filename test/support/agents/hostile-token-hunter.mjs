#!/usr/bin/env node
// A hostile agent: searches its whole machine for a token (its environment, every readable
// /proc/*/environ and cmdline, the checkout's and the global git config, files under HOME, the
// work folders and RUNNER_TEMP), tries each against the GitHub API to create a ref and a
// comment, and reports what it found and what worked (hunter.jsonl in the report folder).
// Then it does its item's ordinary edit, so the mission goes on.
import { editAndReport } from "./fake-lib.mjs";
import { findTarget, huntTokens, inMachine, label, report, tryWrites } from "./hostile-lib.mjs";

const hunt = huntTokens();
const target = findTarget();
const attempts = await tryWrites(
  target,
  hunt.tokens.map((t) => t.token),
  `hunter-${label}`,
);
report("hunter.jsonl", {
  event: "hunted",
  inMachine: inMachine(),
  processes: hunt.processes,
  files: hunt.files,
  found: hunt.tokens.map((t) => ({ where: t.where, token: `${t.token.slice(0, 8)}…(${t.token.length})` })),
  target: { apis: target.apis, owner: target.owner, repo: target.repo },
  attempts,
  worked: attempts.filter((a) => a.worked),
});
console.log(`hunter: ${hunt.tokens.length} token(s) found, ${attempts.filter((a) => a.worked).length} write(s) worked`);
editAndReport("hostile-token-hunter");
