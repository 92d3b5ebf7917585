/**
 * naruto's own files of one contained run (docs/architecture.md, "naruto's own I/O is outside the
 * wall"): the prompt naruto writes for the command, and the files the command writes for naruto
 * (its result, the planner's plan). Every path an agent could have written is data, never a place
 * naruto opens by name, so each run gets a folder of its own, made fresh in the work directory's
 * `io/` (which the sandbox shows read-only), and in it files created with
 * `O_CREAT|O_EXCL|O_NOFOLLOW`: nothing that was there before — a link an agent left, a named
 * pipe, a folder — is ever opened, followed or written through. The sandbox binds each output file
 * read-write on its own (see SandboxRun.outputs), so an agent can fill it but never replace it.
 *
 * ```
 * io/run-<random>/   (0755, naruto's)
 *   prompt.md        naruto's, read-only to the command
 *   result.json      empty, the command's to write ($NARUTO_RESULT_FILE)
 *   plan.yml         the planner's, likewise ($NARUTO_PLAN_FILE)
 * ```
 *
 * Without the sandbox the command runs as naruto's user and could change `io/` itself; these
 * files then keep naruto from blocking or following a link, not the command from anything it
 * could do anyway.
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { lstat, mkdir, open } from "node:fs/promises";
import { join } from "node:path";
import type { WorkDir } from "./work-dir.ts";

/** What a command may write for naruto besides its result. */
export type RunOutput = "result" | "plan";

export interface RunFiles {
  /** The run's folder in `io/`. */
  readonly folder: string;
  /** The prompt, written by naruto. */
  readonly prompt: string;
  /** Each output, created empty: where the command writes it, and where naruto reads it. */
  readonly outputs: Readonly<Record<RunOutput, string | null>>;
}

/** naruto could not make its own files for a run (its `io/` folder was not naruto's any more, the disk). */
export class RunFilesError extends Error {
  override readonly name = "RunFilesError";
}

const FILE_NAMES: Readonly<Record<RunOutput, string>> = { result: "result.json", plan: "plan.yml" };

/**
 * Makes a run's folder with its outputs (empty) and its prompt. `prompt` gets the outputs'
 * paths, for a prompt that names one (the planner's names its plan file).
 *
 * @example const files = await createRunFiles(workDir, { outputs: ["result"], prompt: () => text })
 */
export async function createRunFiles(
  dir: Pick<WorkDir, "io">,
  input: { readonly outputs: readonly RunOutput[]; readonly prompt: (outputs: RunFiles["outputs"]) => string },
): Promise<RunFiles> {
  try {
    const io = await lstat(dir.io);
    if (!io.isDirectory()) throw new RunFilesError(`${dir.io} is not naruto's folder any more (it is not a folder)`);
    const folder = join(dir.io, `run-${randomBytes(6).toString("hex")}`);
    // mkdir never follows a link in the last place: a name that exists fails.
    await mkdir(folder, { mode: 0o755 });
    const outputs: Record<RunOutput, string | null> = { result: null, plan: null };
    for (const name of input.outputs) {
      outputs[name] = join(folder, FILE_NAMES[name]);
      await createFresh(outputs[name], "", 0o600);
    }
    const prompt = join(folder, "prompt.md");
    await createFresh(prompt, input.prompt(outputs), 0o644);
    return { folder, prompt, outputs };
  } catch (error) {
    if (error instanceof RunFilesError) throw error;
    throw new RunFilesError(`naruto could not make its files for the run in ${dir.io}: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
}

/**
 * Creates `path` with `text`, failing when anything is there already (a file, a link, a pipe, a
 * folder): `O_CREAT|O_EXCL|O_NOFOLLOW`, never a write through something that existed.
 */
export async function createFresh(path: string, text: string, mode: number): Promise<void> {
  const handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  try {
    if (text !== "") await handle.writeFile(text);
    // The umask may have taken bits off: the mode is the one asked for.
    await handle.chmod(mode);
  } finally {
    await handle.close();
  }
}
