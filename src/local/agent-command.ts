/**
 * `--agent COMMAND` names files as the user's shell sees them: relative to where `naruto run`
 * was started. The agent runs in a work directory made from the commit (a copy of the
 * repository's files, elsewhere), where a relative path means something else, and in a sandbox
 * that shows nothing of this machine it was not given. So before anything is made, each word of
 * the command that names a file here is made to name it there:
 *
 * - a file outside the repository (`../agents/run.sh`, `/opt/agent/run.sh`) by its absolute path,
 *   which the sandbox shows read-only, the file alone (its folder with `--read`);
 * - the program it starts, inside the repository: by its path from the repository's top, which is
 *   the work directory's; refused when the commit the mission starts from does not hold it.
 *
 * A program named by a path that is not there is refused. Words with an expansion (`$X`, `~`, a
 * glob) are left to the shell.
 */
import { stat } from "node:fs/promises";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { commandProgram, commandWords, replaceWords, type CommandWord } from "../agent/index.ts";
import type { Git } from "../git/index.ts";
import { RunRefusedError } from "./preflight.ts";

export interface AgentCommand {
  /** The command as the agent runs it. */
  readonly command: string;
  /** Files outside the repository it names, shown read-only in its sandbox. */
  readonly files: readonly string[];
}

export async function resolveAgentCommand(input: {
  readonly git: Git;
  readonly repoDir: string;
  readonly cwd: string;
  readonly commit: string;
  readonly command: string;
}): Promise<AgentCommand> {
  const { command, repoDir } = input;
  const program = commandProgram(command);
  const replaced = new Map<CommandWord, string>();
  const files = new Set<string>();
  for (const word of commandWords(command)) {
    if (!word.literal || !word.text.includes("/") || word.text.startsWith("-")) continue;
    const path = resolve(input.cwd, word.text);
    const inRepo = path === repoDir || path.startsWith(repoDir + sep);
    const kind = await kindOf(path);
    if (program !== null && word.start === program.start) {
      if (inRepo) {
        const inCommit = relative(repoDir, path).split(sep).join("/");
        if (!(await committed(input, inCommit))) throw new RunRefusedError(notCommitted(word.text, inCommit, kind !== null, input.commit));
        if (!isAbsolute(word.text) && resolve(repoDir, word.text) !== path) replaced.set(word, `./${inCommit}`);
        continue;
      }
      if (kind === null)
        throw new RunRefusedError(`the --agent command runs \`${word.text}\`, which is not here (${path}): fix the path. Nothing was started.`);
      if (kind === "folder")
        throw new RunRefusedError(`the --agent command runs \`${word.text}\`, which is a folder (${path}): name the program in it. Nothing was started.`);
    } else if (inRepo || kind !== "file") {
      // Inside the repository it is the work directory's file (the commit's); a path that is not
      // a file here may be one the agent makes.
      continue;
    }
    if (!isAbsolute(word.text)) replaced.set(word, path);
    files.add(path);
  }
  return { command: replaced.size === 0 ? command : replaceWords(command, replaced), files: [...files] };
}

async function kindOf(path: string): Promise<"file" | "folder" | "other" | null> {
  const info = await stat(path).catch(() => null);
  return info === null ? null : info.isFile() ? "file" : info.isDirectory() ? "folder" : "other";
}

async function committed(input: { readonly git: Git; readonly repoDir: string; readonly commit: string }, path: string): Promise<boolean> {
  const { code } = await input.git({ args: ["cat-file", "-e", `${input.commit}:${path}`], cwd: input.repoDir, okCodes: [128] });
  return code === 0;
}

function notCommitted(word: string, path: string, here: boolean, commit: string): string {
  const why = here ? "is in your work tree but not in the commit the mission starts from" : "is not in the commit the mission starts from";
  return (
    `the --agent command runs \`${word}\`, which ${why} (${commit.slice(0, 12)}): agents work on a copy of that commit, outside your repository. ` +
    `Commit ${path} first, or keep the script outside the repository and name it by its path. Nothing was started.`
  );
}
