import { Command, CommanderError } from "commander";

/** Where the CLI writes; injected so tests can run commands in-process. */
export interface CliIO {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly readStdin: () => Promise<string>;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
}

export function processIO(): CliIO {
  return {
    stdout: (t) => void process.stdout.write(t),
    stderr: (t) => void process.stderr.write(t),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      return Buffer.concat(chunks).toString("utf8");
    },
    cwd: process.cwd(),
    env: process.env,
  };
}

/** Runs the CLI and returns the exit code. */
export async function main(argv: readonly string[], io: CliIO = processIO()): Promise<number> {
  let code = 0;
  const program = new Command("naruto")
    .description("One request, many coding agents in parallel, safely.")
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });

  program
    .command("demo")
    .description("run a whole mission on a bundled example (no network, no keys)")
    .action(() => {
      io.stderr("naruto demo: not yet — the local runner lands with the mission engine.\n");
      code = 1;
    });

  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    throw e;
  }
  return code;
}
