/** Public face of `src/agent/`: the agent runner, prompts, and the demo agent. */
export { runAgent, type AgentOutcome, type AgentRun, type RunAgentOptions } from "./run-agent.ts";
export { buildPrompt, PREVIOUS_FAILURE_LIMIT, type PromptInput, type PromptPath } from "./prompt.ts";
export { buildAgentEnv, buildCommandEnv, type AgentEnv, type AgentEnvInput, type AttemptVars } from "./agent-env.ts";
export { parseAgentResult, SUMMARY_LIMIT, type AgentResult, type ParsedAgentResult } from "./agent-result.ts";
export { DEMO_AGENT_PATH, demoAgentCommand } from "./demo-agent.ts";
export { shellQuote } from "./shell-quote.ts";
export { planWithAgent } from "./planner.ts";
export type { PlannerResult } from "./planner.ts";
export { outputTail, TAIL_LINES, TAIL_WIDTH } from "./output-tail.ts";
export { commandNamed, commandProgram, commandWords, replaceWords, SHELL_WORDS, type CommandWord } from "./command-words.ts";
export { agentEndpoints } from "./endpoints.ts";
export { jwtExpiry, loginPath, placeLogin, readLogin, safeCopy, type LoginCopy } from "./cli-login.ts";
