/**
 * How each preset's CLI authenticates (measured with claude 2.1.328, codex-cli 0.169.0 and
 * gemini 0.61.0; aider from its docs): the variables that give it credentials, the offline probe
 * its CLI offers, its login on this machine, and the commands that give it credentials, which a
 * refusal names. Plain data: the pre-run check and the unpassed-variable warning (src/local/)
 * and the attempts (src/engine/) read it. docs/agents.md says what each CLI does with its login, and why
 * naruto shows the agent the login it does.
 */
import type { PresetName } from "./presets.ts";

export interface PresetAuth {
  /** The CLI, as people call it. */
  readonly cli: string;
  /** Ways its variables give it credentials: every name of one entry set (non-empty) is enough. */
  readonly variables: readonly (readonly string[])[];
  /**
   * A command of its CLI that answers offline whether it has credentials (exit 0: yes), run with
   * the variables the agent gets and its private HOME; null: its CLI has none.
   */
  readonly probe: readonly string[] | null;
  /** Its login on this machine (`login: true`); null: it has none naruto can show. */
  readonly login: LoginFiles | null;
  /** What gives it credentials: a command line and what it is, for a refusal. */
  readonly fix: readonly (readonly [command: string, why: string])[];
  /** Variables people set for it that it does not read, and what to do instead. */
  readonly misread?: Readonly<Record<string, string>>;
  /**
   * Variables of its vendor that point it somewhere (a gateway's address, its headers): one set
   * in the shell that the profile does not pass is named on the terminal, with the `env:` that
   * passes it. (The proxy variables every preset passes.)
   */
  readonly related: RegExp;
}

/**
 * Where a CLI keeps its login: the file `file` in the folder the variable `dirVariable` names,
 * else `homeDir` under HOME (a variable `underVariable` may name another home to put it under).
 * The agent gets a copy at `target` in its private HOME, made by the rule of `kind`
 * (src/agent/cli-login.ts).
 */
export interface LoginFiles {
  readonly kind: "claude" | "codex" | "gemini";
  readonly dirVariable: string | null;
  /** A variable naming the home that holds `homeDir` instead of HOME (Gemini's GEMINI_CLI_HOME). */
  readonly underVariable?: string;
  readonly homeDir: string;
  readonly file: string;
  /** More files of the login, copied beside it when they are there. */
  readonly extras: readonly string[];
  /** Its folder in the agent's private HOME. */
  readonly target: string;
  /** How a user logs the CLI in on this machine. */
  readonly signIn: string;
  /**
   * What stands in for the login on a GitHub runner, which has none: the secrets to store (its
   * preset passes them to the agent), for the refusal of a mission there (src/github-driver/).
   */
  readonly onRunner: string;
}

const LOGIN_FLAG = "naruto run --login …";

export const PRESET_AUTH: Readonly<Record<PresetName, PresetAuth>> = {
  claude: {
    cli: "Claude Code",
    variables: [
      ["ANTHROPIC_API_KEY"],
      ["CLAUDE_CODE_OAUTH_TOKEN"],
      ["ANTHROPIC_AUTH_TOKEN"],
      ["CLAUDE_CODE_USE_BEDROCK"],
      ["CLAUDE_CODE_USE_VERTEX"],
      ["CLAUDE_CODE_USE_FOUNDRY"],
    ],
    // `claude auth status` reads the variables and the stored login, never the network; exit 1: none.
    probe: ["claude", "auth", "status"],
    related: /^(ANTHROPIC|CLAUDE_CODE)_\w*(BASE_URL|_HEADERS|API_KEY|AUTH_TOKEN)$/,
    login: {
      kind: "claude",
      dirVariable: "CLAUDE_CONFIG_DIR",
      homeDir: ".claude",
      file: ".credentials.json",
      extras: [],
      target: ".claude",
      signIn: "claude auth login",
      onRunner:
        "`CLAUDE_CODE_OAUTH_TOKEN` for your Claude subscription (`claude setup-token` on your machine prints one, valid for a year), or `ANTHROPIC_API_KEY`",
    },
    fix: [
      ["export ANTHROPIC_API_KEY=sk-ant-…", "an API key (console.anthropic.com)"],
      ["claude setup-token", "then export CLAUDE_CODE_OAUTH_TOKEN=<the token it prints>: your Claude subscription, a token valid for a year"],
      [LOGIN_FLAG, "this machine's Claude Code login (`login: true` in the profile; docs/agents.md)"],
    ],
  },
  codex: {
    cli: "Codex CLI",
    // `codex exec` reads CODEX_API_KEY; OPENAI_API_KEY only through `codex login --with-api-key`.
    variables: [["CODEX_API_KEY"]],
    // `codex login status` reads the stored login only (not CODEX_API_KEY), offline; exit 1: none.
    probe: ["codex", "login", "status"],
    related: /^(CODEX|OPENAI)_\w*(BASE_URL|API_BASE|API_KEY)$/,
    login: {
      kind: "codex",
      dirVariable: "CODEX_HOME",
      homeDir: ".codex",
      file: "auth.json",
      extras: [],
      target: ".codex",
      signIn: "codex login",
      onRunner: "`CODEX_API_KEY`, an OpenAI API key (a ChatGPT sign-in lives only in a login file)",
    },
    fix: [
      ["export CODEX_API_KEY=sk-…", "an OpenAI API key (codex exec reads CODEX_API_KEY)"],
      ["printenv OPENAI_API_KEY | codex login --with-api-key", `then ${LOGIN_FLAG}: the key stored as Codex's login`],
      ["codex login", `then ${LOGIN_FLAG}: your ChatGPT sign-in (docs/agents.md)`],
    ],
    misread: {
      OPENAI_API_KEY: 'OPENAI_API_KEY is set, but codex exec reads CODEX_API_KEY: export CODEX_API_KEY="$OPENAI_API_KEY"',
      OPENAI_BASE_URL:
        "OPENAI_BASE_URL is set, but Codex does not read it: a gateway is a model provider in its config.toml (CODEX_HOME, passed by the preset; docs/agents.md)",
    },
  },
  gemini: {
    cli: "Gemini CLI",
    variables: [
      ["GEMINI_API_KEY"],
      ["GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_API_KEY"],
      ["GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_APPLICATION_CREDENTIALS"],
      ["GOOGLE_GENAI_USE_GCA", "GOOGLE_CLOUD_ACCESS_TOKEN"],
    ],
    probe: null,
    related: /^(GEMINI|GOOGLE)_\w*(BASE_URL|API_KEY|ACCESS_TOKEN)$/,
    login: {
      kind: "gemini",
      dirVariable: null,
      underVariable: "GEMINI_CLI_HOME",
      homeDir: ".gemini",
      file: "oauth_creds.json",
      extras: ["google_accounts.json"],
      target: ".gemini",
      signIn: "gemini (Login with Google)",
      onRunner: "`GEMINI_API_KEY` (aistudio.google.com/apikey), or Vertex AI's `GOOGLE_GENAI_USE_VERTEXAI` with `GOOGLE_API_KEY`",
    },
    fix: [
      ["export GEMINI_API_KEY=…", "a Gemini API key (aistudio.google.com/apikey)"],
      [
        "export GOOGLE_GENAI_USE_VERTEXAI=true GOOGLE_CLOUD_PROJECT=… GOOGLE_CLOUD_LOCATION=…",
        "Vertex AI, with GOOGLE_API_KEY or GOOGLE_APPLICATION_CREDENTIALS",
      ],
      ["gemini", `choose "Login with Google" once, then ${LOGIN_FLAG}: your Google account (docs/agents.md)`],
    ],
  },
  aider: {
    cli: "aider",
    variables: [["ANTHROPIC_API_KEY"], ["OPENAI_API_KEY"], ["GEMINI_API_KEY"], ["DEEPSEEK_API_KEY"], ["OPENROUTER_API_KEY"]],
    probe: null,
    related: /^(AIDER|OPENAI|ANTHROPIC|GEMINI|DEEPSEEK|OPENROUTER|OLLAMA)_\w*(API_BASE|BASE_URL|API_KEY)$/,
    login: null,
    fix: [
      [
        "export ANTHROPIC_API_KEY=sk-ant-…",
        "the key of the model the preset runs (--model sonnet); OPENAI_API_KEY, GEMINI_API_KEY, DEEPSEEK_API_KEY or OPENROUTER_API_KEY with AIDER_MODEL for another",
      ],
    ],
  },
};

/** The names of a preset's credential variables, in order, once each. */
export function authVariableNames(auth: PresetAuth): string[] {
  return [...new Set(auth.variables.flat())];
}

/** The refusal's lines of what to do, aligned. */
export function formatFix(auth: PresetAuth): string {
  const width = Math.max(...auth.fix.map(([command]) => command.length));
  return auth.fix.map(([command, why]) => `  ${command.padEnd(width)}   ${why}`).join("\n");
}
