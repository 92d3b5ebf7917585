import { fileURLToPath } from "node:url";
import { shellQuote } from "../../../src/agent/shell-quote.ts";

/** The fake agents of this folder; see each script's header for what it does. */
export type FakeAgent =
  | "edit"
  | "slow"
  | "crash"
  | "hang"
  | "out-of-scope"
  | "noop"
  | "flaky"
  | "hostile-token-hunter"
  | "hostile-pusher"
  | "hostile-lingerer"
  | "hostile-local"
  | "hostile-doors"
  | "hostile-gate"
  | "hostile-net"
  | "hostile-limits"
  | "hook-runner"
  | "leaky";

export function fakeAgentPath(name: FakeAgent): string {
  return fileURLToPath(new URL(`./${name}.mjs`, import.meta.url));
}

/** A profile command that runs the fake agent with the Node running the tests. */
export function fakeAgentCommand(name: FakeAgent): string {
  return `${shellQuote(process.execPath)} ${shellQuote(fakeAgentPath(name))}`;
}

/**
 * The folders the test agents live in (these fakes, naruto's demo agent), as a YAML/JSON list
 * for a profile's `read:`: the sandbox shows an agent nothing else of the machine but the system.
 */
export const TEST_AGENT_READ = JSON.stringify([
  fileURLToPath(new URL(".", import.meta.url)).replace(/\/$/, ""),
  fileURLToPath(new URL("../../../src/agent", import.meta.url)),
]);
