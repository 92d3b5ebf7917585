import { fileURLToPath } from "node:url";
import { shellQuote } from "./shell-quote.ts";

/** The demo agent script (its instruction language is documented at its top). It ships with naruto. */
export const DEMO_AGENT_PATH = fileURLToPath(new URL("./demo-agent.mjs", import.meta.url));

/**
 * The profile command that runs the demo agent, e.g. for `naruto demo`.
 *
 * @param node The Node executable; an entry point passes `process.execPath` so the demo runs on
 *   the same Node as naruto.
 */
export function demoAgentCommand(node = "node"): string {
  return `${shellQuote(node)} ${shellQuote(DEMO_AGENT_PATH)}`;
}
