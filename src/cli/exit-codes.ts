/**
 * Exit codes, as `naruto --help` and the README list them. A file of its own so that main.ts
 * has them without loading errors.ts (which imports the error classes of every command) when
 * all it does is print its help or version.
 */
export const EXIT = {
  /** The command did what was asked; a mission ended with verdict `approve`. */
  ok: 0,
  /** The answer is "no": a mission ended without approval, a plan or proof was rejected. */
  no: 1,
  /** Bad usage, or the environment is not ready (no repository, a missing CLI, an invalid plan). */
  usage: 2,
} as const;
