/**
 * The plan and agents of the no-barrier scenarios (app-no-barrier, action-no-barrier): `fast`
 * and `slow` become ready together and start as one work run, a matrix of two; `after-fast`
 * needs `fast` only; the slow agent does not end until `after-fast`'s agent has started (it
 * gives up and fails after two minutes). The agents run in the sandbox, as on every runner: the
 * test marks the start of after-fast's agent in the world's shared reports folder (a step hook,
 * before its agent step), which the slow agent sees, read-only.
 */
import { writeFile } from "node:fs/promises";
import { shellQuote } from "../../../src/agent/shell-quote.ts";
import type { StepHookInfo } from "../../support/actions-sim/index.ts";
import { APP_CONFIG } from "./app-checks.ts";

export const NO_BARRIER_PLAN = `version: 1
title: No barrier
items:
  - id: fast
    title: Fast
    writes: [src/fast.js]
    prompt: |
      create src/fast.js "export const fast = 1;\\n"
  - id: slow
    title: Slow, until after-fast has started
    agent: waiter
    writes: [src/slow.txt]
    prompt: wait for after-fast
  - id: after-fast
    title: After fast
    agent: marker
    after: [fast]
    writes: [src/after.txt]
    prompt: mark the start
`;

/** The config (made from the world's reports folder) and the step hook that marks after-fast's start. */
export function noBarrier(): { config: (reports: string) => string; stepHook: (info: StepHookInfo) => Promise<void> } {
  let started: string | null = null;
  return {
    config: (reports) => {
      started = `${reports}/after-fast-started`;
      const mark = shellQuote(started);
      const waiter = `for i in $(seq 1 1200); do [ -e ${mark} ] && break; sleep 0.1; done; [ -e ${mark} ] || { echo "after-fast never started while slow worked" >&2; exit 3; }; mkdir -p src && echo slow > src/slow.txt`;
      const marker = "mkdir -p src && echo after > src/after.txt";
      return APP_CONFIG.replace(
        "limits:",
        `  waiter: { command: ${JSON.stringify(waiter)}, read: ${JSON.stringify([reports])}, timeout: 3m }\n  marker: { command: ${JSON.stringify(marker)}, timeout: 1m }\nlimits:`,
      );
    },
    stepHook: async (info) => {
      if (started !== null && info.job === "work" && info.matrix?.["item"] === "after-fast" && info.phase === "before" && info.step === "naruto agent")
        await writeFile(started, "started\n");
    },
  };
}
