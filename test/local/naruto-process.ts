/**
 * The real `bin/naruto.js` as a process, run to its end: what a newcomer's terminal shows. PATH
 * holds Node.js and the system folders only (no agent CLI is installed) unless `env` says more.
 */
import { execFile } from "node:child_process";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { createGit, gitText } from "../../src/git/run-git.ts";
import { cliEnv } from "./cli-io.ts";

export const BIN = fileURLToPath(new URL("../../bin/naruto.js", import.meta.url));

/** A stack frame as Node.js prints it. */
export const STACK_FRAME = /^\s+at .+:\d+:\d+\)?$/m;

/** PATH with Node.js and the system folders only. */
export const BARE_PATH = [dirname(process.execPath), "/usr/bin", "/bin"].join(":");

export interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export function naruto(cwd: string, args: readonly string[], env: Record<string, string | undefined> = {}): Promise<Ran> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd, env: { ...cliEnv(), PATH: BARE_PATH, ...env } as NodeJS.ProcessEnv, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        done({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

/** Refused before anything was made: exit 2, the words that say what to do, no stack frame. */
export function expectRefused(r: Ran, ...named: string[]): void {
  expect(r.code, r.stderr + r.stdout).toBe(2);
  for (const n of named) expect(r.stderr).toContain(n);
  expect(r.stderr).not.toMatch(STACK_FRAME);
  expect(r.stdout).not.toMatch(STACK_FRAME);
}

/** Every ref of the repository, one per line. */
export async function refs(dir: string): Promise<string> {
  return gitText(createGit({ env: cliEnv() }), { args: ["for-each-ref", "--format=%(refname)"], cwd: dir });
}
