/**
 * No barrier within a batch (DESIGN.md §5): `fast` and `slow` become ready together and start as
 * one work run, a matrix of two; `after-fast` needs `fast` only. The slow agent does not end
 * until `after-fast`'s agent has started. If the legs of a work run were integrated only once
 * all of them ended, that could never happen: the slow agent gives up and fails, and the
 * mission with it. With the App, the end of `fast`'s leg starts an integrate run that takes it
 * onto the queue at once; `after-fast` starts from that queue while `slow` still works, and all
 * three are integrated. GitHub runs a mission's runs side by side, and so does this world.
 */
import { missionIdFor, runIdOf } from "../../../src/github-driver/mission-id.ts";
import { shellQuote } from "../../../src/agent/shell-quote.ts";
import { APP_CONFIG, checkFinished, withPlan } from "../support/app-checks.ts";
import { MAINTAINER, REPO, withAppWorld } from "../support/app-world.ts";
import { check, checkEqual, type Scenario } from "./scenario.ts";

const PLAN = `version: 1
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

function config(reports: string): string {
  const started = shellQuote(`${reports}/after-fast-started`);
  const waiter = `for i in $(seq 1 1200); do [ -e ${started} ] && break; sleep 0.1; done; [ -e ${started} ] || { echo "after-fast never started while slow worked" >&2; exit 3; }; mkdir -p src && echo slow > src/slow.txt`;
  const marker = `touch ${started} && mkdir -p src && echo after > src/after.txt`;
  return APP_CONFIG.replace(
    "limits:",
    `  waiter: { command: ${JSON.stringify(waiter)}, timeout: 3m }\n  marker: { command: ${JSON.stringify(marker)}, timeout: 1m }\n# The agents wait on a file in the world's shared folder.\nsandbox: none\nlimits:`,
  );
}

export const appNoBarrier: Scenario = {
  name: "app-no-barrier",
  run: () =>
    withAppWorld({ config, parallelRuns: 4 }, async (world) => {
      const { commentId } = await world.comment({ as: MAINTAINER, body: withPlan("/naruto Fast, slow, and after fast", PLAN) });
      const id = missionIdFor(REPO, commentId);
      await world.settle(30);
      await checkFinished(world, id, { items: ["fast", "slow", "after-fast"], files: ["src/fast.js", "src/slow.txt", "src/after.txt"] });

      const mission = await world.mission(id);
      check(mission !== null, "no mission", world.runs);
      const item = (name: string) => mission.items.find((i) => i.id === name);
      const batch = runIdOf(item("fast")?.attempts[0]?.runner ?? null);
      checkEqual(runIdOf(item("slow")?.attempts[0]?.runner ?? null), batch, "fast and slow started in one run", world.runs);
      checkEqual(item("after-fast")?.attempts[0]?.base, item("fast")?.commit, "after-fast started from the queue holding fast", world.runs);
      const integrateRuns = world.runs.filter((r) => r.title === `naruto integrate ${id}`);
      check(integrateRuns.length > 0, "the App started an integrate run", world.runs);
    }),
};
