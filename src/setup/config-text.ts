/**
 * The `.github/naruto.yml` that `naruto init` writes: the agent chosen, and every other key at
 * its default, commented out, with what it does. test/setup/config-text.test.ts loads it with
 * the config's own schema for every choice, and holds each commented default to the schema's.
 */
import type { AgentChoice } from "./agent-setup.ts";

export interface ConfigTextInput {
  readonly agent: AgentChoice;
  /** The command of `--agent command`. */
  readonly command: string | null;
}

export function configText(input: ConfigTextInput): string {
  const agent =
    input.agent === "command"
      ? `  default:\n    command: ${JSON.stringify(input.command ?? "")}   # run with sh -c in the item's work directory; the prompt is in $NARUTO_PROMPT_FILE\n    # env: [MY_AGENT_KEY]      # variables it gets (the workflow's agent steps must pass them too)\n`
      : `  default: { preset: ${input.agent} }   # claude, codex, gemini or aider: a checked command line and its key\n`;
  return `# naruto's configuration, read from the default branch (naruto's README, "Configuration").
# Every key but the agent is commented out at its default; schema: naruto's schema/naruto.schema.json.
version: 1
agents:
${agent}#  quick:                          # more profiles by name, for items that say agent: quick
#    command: ./scripts/my-agent.sh
#    timeout: 20m
#    env: [MY_AGENT_KEY]
#    network: true
#planner: { agent: default }      # writes a plan when a request has none
#arbiter: { agent: none }         # a review agent profile, or none (the policy rules only)
#queue:
#  verify: npm test               # none by default; run once per batch on the candidate, in the sandbox; bisected when red
#  batch: 8
#  env: []                        # variables verify gets (the workflow's queue step must pass them)
#sandbox: auto                    # auto (bubblewrap when it works, else say so) | required | none
#limits:
#  max_parallel: 4                # agents at once (at most 256: one Actions matrix)
#  max_attempts: 2                # per item; a retry starts from the current queue head
#  item_timeout: 30m
#  mission_timeout: 6h
#  max_items: 1000
#  max_cost_usd: 20               # a cap that stops the mission (no cap by default)
#  min_permission: write          # who may comment /naruto
#  max_file_size: 50MiB
#protected: [.github/, CODEOWNERS, docs/CODEOWNERS, .claude/, .mcp.json, .codex/, .gemini/, .aider.conf.yml, .aider.model.settings.yml, .aider.model.metadata.json, .aiderignore, .env]
#allow_protected: false
#allow: []                        # submodules, gitattributes
#allow_bots: []                   # bots by exact login, e.g. renovate[bot]
#approval: false                  # post the plan and wait for /naruto approve
#schedules: []                    # missions the sweep starts by the clock
`;
}
