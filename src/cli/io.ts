/** Where the CLI reads and writes; injected so tests run commands in-process. */
export interface CliIO {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly readStdin: () => Promise<string>;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** stdout is a terminal (live progress) rather than a pipe or a CI log. */
  readonly isTTY: boolean;
}
