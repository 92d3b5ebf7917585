#!/usr/bin/env node
// A hostile agent that leaves a process running after it exits: the process (its own session,
// so killing the agent's process group misses it, and without naruto's tracking variable) waits for the agent to be gone, then keeps
// hunting for tokens — a later step's or a later job's — and tries every new one (and none, at
// first), for up to LINGER_SECONDS (default 120). It reports to lingerer.jsonl: started,
// outlived the agent, each attempt as it is made, each round. The agent itself does its item's ordinary edit and exits 0.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { editAndReport } from "./fake-lib.mjs";
import { findTarget, huntTokens, label, processTokens, report, tryWrites } from "./hostile-lib.mjs";

if (process.argv[2] === "linger") {
  const agent = Number(process.argv[3]);
  // The checkout it came from (it left it, to escape a sweep by working directory).
  const checkout = process.argv[4] ?? process.cwd();
  const until = Date.now() + Number(process.env.LINGER_SECONDS ?? "120") * 1000;
  const alive = (pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  report("lingerer.jsonl", { event: "started" });
  while (alive(agent) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  report("lingerer.jsonl", { event: "outlived the agent" });
  // Fast rounds read only the process table (where a later step's token would show up first);
  // every fifth round searches files as well. Each attempt is reported as soon as it is made.
  const tried = new Set();
  for (let round = 1; Date.now() < until; round++) {
    const found = round % 5 === 0 ? huntTokens().tokens : processTokens();
    const fresh = found.map((t) => t.token).filter((t) => !tried.has(t));
    for (const t of fresh) tried.add(t);
    if (round === 1 || fresh.length > 0) {
      const attempts = await tryWrites(findTarget(checkout), fresh, `linger-${label}-${round}`, (attempt) =>
        report("lingerer.jsonl", { event: "attempt", round, attempts: [attempt], worked: attempt.worked ? [attempt] : [] }),
      );
      report("lingerer.jsonl", { event: "round", round, fresh: fresh.length, tried: attempts.length });
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  report("lingerer.jsonl", { event: "gave up" });
} else {
  // It also drops naruto's tracking variable (NARUTO_AGENT_RUN) and leaves its work directory,
  // by which naruto finds what an agent leaves running without a sandbox (src/sandbox/leftovers.ts):
  // this one must meet the job boundary (or, in a sandbox, die with it).
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== "NARUTO_AGENT_RUN"));
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), "linger", String(process.pid), process.cwd()], {
    detached: true,
    stdio: "ignore",
    env,
    cwd: "/",
  });
  child.unref();
  console.log("lingerer: left a process running");
  editAndReport("hostile-lingerer");
}
