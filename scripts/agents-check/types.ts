/**
 * The shared vocabulary of `npm run agents-check` (scripts/agents-check.ts): real agent CLIs,
 * installed outside the repository, driven through naruto's own presets by a scripted model
 * server on loopback, one per vendor wire API.
 *
 * A scenario is data: which prompt it answers (`match`), and the steps its model takes, one per
 * model turn. Each vendor server turns the steps into its own tool calls (Claude Code's `Write`
 * and `Bash`, Codex's `apply_patch`/`exec_command`, Gemini's `write_file`/`run_shell_command`),
 * and ends with the text of a `say` step (or "done").
 */

/** One model turn. */
export type Step =
  /** Write a file; `path` is relative to the agent's working directory (may contain `..`). */
  | { readonly write: { readonly path: string; readonly content: string } }
  /** Run a shell command in the working directory. */
  | { readonly shell: string }
  /** The final answer: no tool call. */
  | { readonly say: string };

export interface Usage {
  readonly input: number;
  readonly output: number;
  /** Tokens read from a prompt cache (where the wire API reports them). */
  readonly cacheRead?: number;
}

export interface Scenario {
  /** A substring of the prompt (the item's task) that picks this scenario. */
  readonly match: string;
  readonly steps: readonly Step[];
  /** What the server reports for each model turn of this scenario. */
  readonly usage: Usage;
}

/** A request the server received, for the check's diagnostics. */
export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly body: string;
}

export interface ModelServer {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  readonly requests: readonly RecordedRequest[];
  close(): Promise<void>;
}

/**
 * One CLI: how to install it, serve it, and point it at the server. The runner installs
 * `pkg@version` into the cache, puts its `bin` folder on PATH, and runs naruto with the preset
 * `name`, passing `env` through (`agent.env` in the config) and showing `readOnly` in the sandbox.
 */
export interface CliDriver {
  readonly name: "claude" | "codex" | "gemini";
  readonly pkg: string;
  readonly version: string;
  startServer(scenarios: readonly Scenario[]): Promise<ModelServer>;
  /**
   * Prepares what the CLI needs to talk to `server` (config files under `stateDir`, a folder
   * outside the repository and outside /tmp) and returns the variables to set and the paths the
   * sandbox must show read-only.
   */
  configure(input: {
    readonly server: ModelServer;
    readonly stateDir: string;
  }): Promise<{ readonly env: Readonly<Record<string, string>>; readonly readOnly: readonly string[] }>;
  /**
   * Logs the CLI in offline, the way its user would on their machine, with a login that talks to
   * `server` (files under `home`, the user's HOME of the run; `bin` holds the CLI): for the opt-in login path
   * (`login: true`). Returns the variables the agent gets besides (never a key), the paths the
   * sandbox shows, and the login file naruto copies, which must be left as it was. Absent: the
   * CLI cannot be logged in offline against its scripted server.
   */
  login?(input: {
    readonly server: ModelServer;
    readonly home: string;
    readonly bin: string;
  }): Promise<{ readonly env: Readonly<Record<string, string>>; readonly readOnly: readonly string[]; readonly loginFile: string }>;
  /** Reads a price: the cost the report should show for `turns` turns of `usage` (null: the CLI reports none). */
  expectedCostUsd(usage: Usage, turns: number): number | null;
  /**
   * The tokens the preset should report for `turns` turns of `usage`, where the CLI counts more
   * than its scenario's turns (a router model's call, say). Without it the check expects
   * `turns × (input + cacheRead)` in and `turns × output` out: `input` is the uncached part of the
   * prompt, and every wire API's total prompt count includes the cached tokens.
   */
  expectedTokens?(usage: Usage, turns: number): { readonly in: number; readonly out: number };
}
