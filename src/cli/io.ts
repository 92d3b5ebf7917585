// Not from ../redact/index.ts, which also holds the store's redaction and with it the config's
// schema (zod): every command, `naruto --help` too, starts here.
import { createRedactor } from "../redact/index.ts";
import { secretValues } from "../redact/index.ts";

/** Where the CLI reads and writes; injected so tests run commands in-process. */
export interface CliIO {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly readStdin: () => Promise<string>;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** stdout is a terminal (live progress) rather than a pipe or a CI log. */
  readonly isTTY: boolean;
  /**
   * Ends the process now, for a run that does not stop within its deadline (`process.exit`);
   * absent in-process (tests), where a run is left to stop on its own.
   */
  readonly exit?: (code: number) => never;
}

/**
 * The terminal through the redactor (docs/architecture.md, "What leaves"): what the CLI prints — the
 * live progress, reasons, the result JSON — never shows a credential-named variable of its
 * environment nor a known format. (What agents print is redacted before, where it enters naruto,
 * with the values the config passes to them.)
 */
export function redactedIO(io: CliIO): CliIO {
  const redactor = createRedactor({ secrets: secretValues({ env: io.env }) });
  return { ...io, stdout: (t) => io.stdout(redactor.redact(t)), stderr: (t) => io.stderr(redactor.redact(t)) };
}
