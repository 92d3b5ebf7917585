/** A `CliIO` for running `main(argv, io)` in-process: output is collected, stdin is given. */
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CliIO } from "../../src/cli/io.ts";
import { TEST_IDENTITY } from "../support/git-repo.ts";

export interface FakeCli {
  readonly io: CliIO;
  stdout(): string;
  stderr(): string;
}

/** Where the CLI under test makes work directories: the temp folder, not the machine's ~/.cache. */
export const TEST_CACHE = join(tmpdir(), "naruto-test-cache");

/** The environment a CLI under test sees: no global or system git config, a test identity. */
export function cliEnv(): Record<string, string | undefined> {
  return { PATH: process.env.PATH, HOME: tmpdir(), XDG_CACHE_HOME: TEST_CACHE, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", ...TEST_IDENTITY };
}

export function fakeCli(cwd: string, options: { stdin?: string } = {}): FakeCli {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: {
      stdout: (t) => void out.push(t),
      stderr: (t) => void err.push(t),
      readStdin: async () => options.stdin ?? "",
      cwd,
      env: cliEnv(),
      isTTY: false,
    },
    stdout: () => out.join(""),
    stderr: () => err.join(""),
  };
}
