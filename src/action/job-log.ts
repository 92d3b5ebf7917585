/**
 * What goes into a job's log, which the runner reads as commands (docs/architecture.md, "What leaves").
 *
 * The runner splits a step's output into lines at `\n`, `\r\n` and a lone `\r` (.NET's
 * `ReadLine`), and reads as a workflow command every line that starts with `::` once leading
 * whitespace is trimmed (`::add-mask::`, `::error::`, `::set-output …::`, `::stop-commands::`),
 * and every line holding `##[` anywhere (the older form: `##[add-mask]…`). Output naruto did
 * not write (an agent's, a verify command's) must do none of that.
 */
import type { Redactor } from "../redact/index.ts";
import type { ActionLog } from "./log.ts";

const LINE_BREAK = /\r\n|\r|\n/;
// What .NET's TrimStart takes away (Char.IsWhiteSpace), and no more: a zero-width space stays.
const LEADING_SPACE = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*/;

/** `##[` anywhere on a line is a command of the old form: break it up where it appears. */
function breakOldForm(line: string): string {
  let out = line;
  while (out.includes("##[")) out = out.replaceAll("##[", "# #[");
  return out;
}

/**
 * Untrusted output for the job log, one quoted line (`  | …`) per line the runner will see:
 * nothing of it can be a workflow command.
 *
 * @example quoteUntrusted("ok\r::add-mask::x") → "  | ok\n  | ::add-mask::x"
 */
export function quoteUntrusted(text: string): string {
  const body = text.replace(/(?:\r\n|\r|\n)$/, "");
  if (body === "") return "";
  return body
    .split(LINE_BREAK)
    .map((line) => `  | ${breakOldForm(line)}`)
    .join("\n");
}

/**
 * Any text for the job log: each line the runner would take for a command is quoted (`| ::…`),
 * `##[` is broken up, and line breaks are `\n`. naruto's own messages never carry commands
 * (those go through @actions/core's own calls), so this changes only text that came from
 * elsewhere: a reason quoting an agent's output, an error message.
 */
export function disarmCommands(text: string): string {
  return text
    .split(LINE_BREAK)
    .map((line) => {
      const safe = breakOldForm(line);
      return safe.slice(LEADING_SPACE.exec(safe)?.[0].length ?? 0).startsWith("::") ? `| ${safe}` : safe;
    })
    .join("\n");
}

/**
 * The job log with every message redacted and disarmed. (The runner masks the `secrets.*` it
 * hands a step, and main.ts masks the job's token, in the log only; this covers the rest, and
 * the summary, which the runner does not mask.)
 */
export function safeJobLog(log: ActionLog, redactor: Redactor): ActionLog {
  const text = (message: string) => disarmCommands(redactor.redact(message));
  return {
    ...log,
    info: (m) => log.info(text(m)),
    warning: (m) => log.warning(text(m)),
    error: (m) => log.error(text(m)),
    group: (name, work) => log.group(text(name), work),
    summary: (markdown) => log.summary(redactor.redact(markdown)),
  };
}
