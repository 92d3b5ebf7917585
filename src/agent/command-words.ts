/**
 * The words of an agent's command line, as far as naruto needs them: which program it starts,
 * and which of its arguments name files, so that the sandbox can show them (docs/architecture.md). A
 * small reading of `sh` syntax, not a shell: quotes and backslashes join a word, blanks and
 * `; & | ( ) < >` end one. A word that holds an expansion (`$`, a backquote, a glob) is not
 * literal: what it names is only known when the shell runs it, so naruto leaves it alone.
 */

export interface CommandWord {
  /** The word with its quotes removed. */
  readonly text: string;
  /** Where it is in the command, quotes included: `command.slice(start, end)`. */
  readonly start: number;
  readonly end: number;
  /** It names the same thing wherever the shell runs it (no `$`, backquote or glob). */
  readonly literal: boolean;
  /** It starts a command: the first word of the line or after `;`, `&`, `|`, `(` (redirections aside). */
  readonly first: boolean;
}

const BLANK = /[ \t\n]/;
const OPERATOR = /[;&|()<>]/;
const STARTS = /[;&|(]/;

export function commandWords(command: string): CommandWord[] {
  const words: CommandWord[] = [];
  let i = 0;
  let first = true;
  let redirect = false;
  while (i < command.length) {
    const c = command[i] ?? "";
    if (BLANK.test(c)) {
      if (c === "\n") first = true;
      i++;
      continue;
    }
    if (c === "#") {
      // A comment runs to the end of the line.
      while (i < command.length && command[i] !== "\n") i++;
      continue;
    }
    if (OPERATOR.test(c)) {
      if (STARTS.test(c)) first = true;
      else redirect = true;
      i++;
      continue;
    }
    const start = i;
    let text = "";
    let literal = true;
    while (i < command.length && !BLANK.test(command[i] ?? "") && !OPERATOR.test(command[i] ?? "")) {
      const ch = command[i] ?? "";
      if (ch === "'") {
        const close = command.indexOf("'", i + 1);
        const stop = close === -1 ? command.length : close;
        text += command.slice(i + 1, stop);
        i = stop + 1;
      } else if (ch === '"') {
        i++;
        while (i < command.length && command[i] !== '"') {
          if (command[i] === "\\" && i + 1 < command.length && /[$`"\\\n]/.test(command[i + 1] ?? "")) i++;
          if (command[i] === "$" || command[i] === "`") literal = false;
          text += command[i];
          i++;
        }
        i++;
      } else if (ch === "\\") {
        text += command[i + 1] ?? "";
        i += 2;
      } else {
        if (ch === "$" || ch === "`" || ch === "*" || ch === "?" || ch === "[" || (ch === "~" && i === start)) literal = false;
        text += ch;
        i++;
      }
    }
    const end = Math.min(i, command.length);
    // `NAME=value` before a command sets a variable; the command is the word after it.
    const assignment = first && /^[A-Za-z_][A-Za-z0-9_]*=/.test(command.slice(start, end));
    words.push({ text, start, end, literal, first: first && !redirect && !assignment });
    if (!assignment && !redirect) first = false;
    redirect = false;
  }
  return words;
}

/** Shell words that start no program of their own (keywords and builtins). */
export const SHELL_WORDS: ReadonlySet<string> = new Set([
  "if",
  "then",
  "else",
  "elif",
  "fi",
  "for",
  "while",
  "until",
  "case",
  "esac",
  "do",
  "done",
  "in",
  "!",
  "{",
  "}",
  "exec",
  "cd",
  "set",
  "export",
  "eval",
  "source",
  ".",
  ":",
  "true",
  "false",
  "test",
  "[",
  "echo",
  "printf",
  "read",
  "trap",
  "umask",
  "ulimit",
  "command",
  "exit",
  "return",
  "unset",
  "wait",
  "shift",
  "local",
  "time",
]);

/**
 * The program a command starts: its first literal word, when it names a program (not a shell
 * word). `sh -c 'x'` starts `sh`; `A=1 ./run.sh` starts `./run.sh`.
 */
export function commandProgram(command: string): CommandWord | null {
  const word = commandWords(command).find((w) => w.first);
  if (word === undefined || !word.literal || SHELL_WORDS.has(word.text) || word.text === "") return null;
  return word;
}

/** The command with each of `words` replaced by `replacement(word)`, quoted for `sh`. */
export function replaceWords(command: string, replaced: ReadonlyMap<CommandWord, string>): string {
  let out = "";
  let at = 0;
  for (const [word, text] of [...replaced].sort(([a], [b]) => a.start - b.start)) {
    out += command.slice(at, word.start) + quoteWord(text);
    at = word.end;
  }
  return out + command.slice(at);
}

function quoteWord(text: string): string {
  return /^[A-Za-z0-9_./:@%+,=-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * What a plain command (not a preset's) names on this machine: the program it starts when it is
 * a bare name (looked up on PATH), and the absolute paths among its literal words (the program
 * itself, a script given to an interpreter, a file it reads). The sandbox shows each file
 * read-only; nothing else of its folder.
 */
export function commandNamed(command: string): { readonly programs: readonly string[]; readonly paths: readonly string[] } {
  const program = commandProgram(command);
  const programs = program !== null && !program.text.includes("/") ? [program.text] : [];
  const paths = commandWords(command)
    .filter((w) => w.literal && w.text.startsWith("/") && w.text.length > 1)
    .map((w) => w.text);
  return { programs, paths: [...new Set(paths)] };
}
