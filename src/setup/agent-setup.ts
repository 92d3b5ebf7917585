/**
 * What each agent choice of `naruto init --agent` puts into the workflow and the config: the
 * step that installs its CLI on a runner (its version pinned: agent flags change often, and
 * these are the versions `npm run agents-check` runs naruto's presets against), the key it
 * reads, passed from a repository secret of the same name, and the program found on PATH when
 * no `--agent` is given.
 */
import { PRESETS, type PresetName } from "../config/index.ts";

export const AGENT_CHOICES = ["claude", "codex", "gemini", "aider", "command"] as const;
export type AgentChoice = (typeof AGENT_CHOICES)[number];

export interface AgentSetup {
  /** What to call it in messages. */
  readonly title: string;
  /** The shell command of the workflow's install step; null when the user installs what they need. */
  readonly install: string | null;
  /** The variables the agent step passes, each from the repository secret of the same name. */
  readonly secrets: readonly string[];
  /** The program whose presence on PATH picks this choice when `--agent` is not given. */
  readonly program: string | null;
  /** Where the key comes from, for the person who adds the secret. */
  readonly keyHint: string | null;
}

/** The pinned versions; test/setup/agent-setup.test.ts holds them equal to scripts/agents-check's. */
export const PINNED = {
  claude: { package: "@anthropic-ai/claude-code", version: "2.1.328" },
  codex: { package: "@openai/codex", version: "0.169.0" },
  gemini: { package: "@google/gemini-cli", version: "0.61.0" },
  aider: { package: "aider-chat", version: "0.86.2" },
} as const satisfies Record<PresetName, { package: string; version: string }>;

const npm = (p: { package: string; version: string }) => `npm install -g ${p.package}@${p.version}`;

export const AGENT_SETUP: Readonly<Record<AgentChoice, AgentSetup>> = {
  claude: {
    title: "Claude Code",
    install: npm(PINNED.claude),
    secrets: ["ANTHROPIC_API_KEY"],
    program: "claude",
    keyHint: "an Anthropic API key, from console.anthropic.com",
  },
  codex: {
    title: "Codex CLI",
    install: npm(PINNED.codex),
    secrets: ["CODEX_API_KEY"],
    program: "codex",
    keyHint: "an OpenAI API key, from platform.openai.com",
  },
  gemini: {
    title: "Gemini CLI",
    install: npm(PINNED.gemini),
    secrets: ["GEMINI_API_KEY"],
    program: "gemini",
    keyHint: "a Gemini API key, from aistudio.google.com",
  },
  // pipx is on GitHub's Ubuntu runners; the preset runs aider with --model sonnet (Anthropic's key).
  aider: {
    title: "aider",
    install: `pipx install ${PINNED.aider.package}==${PINNED.aider.version}`,
    secrets: ["ANTHROPIC_API_KEY"],
    program: "aider",
    keyHint: "an Anthropic API key: the preset runs aider with --model sonnet",
  },
  command: { title: "your own command", install: null, secrets: [], program: null, keyHint: null },
};

/** Every secret a choice names is a variable its preset lets through to the agent (or the user's own, for `command`). */
export function presetOf(choice: AgentChoice): PresetName | null {
  return choice === "command" ? null : choice;
}

/** The choice to use when none is given: the first preset whose program is on PATH (in AGENT_CHOICES' order), else claude. */
export function inferAgent(onPath: (program: string) => boolean): { choice: AgentChoice; found: boolean } {
  for (const choice of AGENT_CHOICES) {
    const program = AGENT_SETUP[choice].program;
    if (program !== null && onPath(program)) return { choice, found: true };
  }
  return { choice: "claude", found: false };
}

/** The `yours` blocks of the workflow for a choice; the blocks it does not name keep the template's text. */
export function agentBlocks(choice: AgentChoice): Record<string, string> {
  const setup = AGENT_SETUP[choice];
  const install =
    setup.install === null
      ? "      # Install what your agent command needs here (a `run:` step, its versions pinned).\n"
      : `      - name: Install ${setup.title}\n        run: ${setup.install}\n`;
  const env =
    setup.secrets.length === 0
      ? "          # Your agent's variables, e.g. MY_AGENT_KEY: ${{ secrets.MY_AGENT_KEY }} (list them in its profile's env: too)\n"
      : setup.secrets.map((name) => `          ${name}: \${{ secrets.${name} }}\n`).join("");
  const blocks: Record<string, string> = {};
  for (const job of ["plan", "work", "review"]) {
    blocks[`${job}-install`] = install;
    blocks[`${job}-env`] = env;
  }
  return blocks;
}

/** The secret names a preset's agent may receive (its env allowlist): a check that AGENT_SETUP passes only what reaches it. */
export function presetAllows(choice: AgentChoice, name: string): boolean {
  const preset = presetOf(choice);
  return preset !== null && PRESETS[preset].env.includes(name);
}
