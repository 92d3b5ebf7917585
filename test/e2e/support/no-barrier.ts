/**
 * The plan and agents of the no-barrier scenarios (app-no-barrier, action-no-barrier): `fast`
 * and `slow` become ready together and start as one work run, a matrix of two; `after-fast`
 * needs `fast` only; the slow agent does not end until `after-fast`'s agent has started (it
 * gives up and fails after two minutes). The agents meet through a file in the world's shared
 * reports folder, so they run without the sandbox.
 */
import { shellQuote } from "../../../src/agent/shell-quote.ts";
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

export function noBarrierConfig(reports: string): string {
  const started = shellQuote(`${reports}/after-fast-started`);
  const waiter = `for i in $(seq 1 1200); do [ -e ${started} ] && break; sleep 0.1; done; [ -e ${started} ] || { echo "after-fast never started while slow worked" >&2; exit 3; }; mkdir -p src && echo slow > src/slow.txt`;
  const marker = `touch ${started} && mkdir -p src && echo after > src/after.txt`;
  return APP_CONFIG.replace(
    "limits:",
    `  waiter: { command: ${JSON.stringify(waiter)}, timeout: 3m }\n  marker: { command: ${JSON.stringify(marker)}, timeout: 1m }\n# The agents wait on a file in the world's shared folder.\nsandbox: none\nlimits:`,
  );
}
