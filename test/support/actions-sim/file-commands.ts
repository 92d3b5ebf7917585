/**
 * What a step tells the runner: the environment files (`GITHUB_OUTPUT`, `GITHUB_ENV`,
 * `GITHUB_STATE`, `GITHUB_PATH`) and the workflow commands it prints (`::add-mask::`,
 * `::error::`, `::warning::`). @actions/core writes the heredoc form `name<<ghadelimiter_…`.
 */

/** A file command that does not parse: the runner fails the step with this message. */
export class FileCommandError extends Error {
  override readonly name = "FileCommandError";
}

/** Parses `name=value` lines and `name<<DELIMITER … DELIMITER` blocks; later values win. */
export function parseKeyValueFile(text: string, file: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (line === "") continue;
    const heredoc = line.indexOf("<<");
    const equals = line.indexOf("=");
    if (heredoc !== -1 && (equals === -1 || heredoc < equals)) {
      const name = line.slice(0, heredoc);
      const delimiter = line.slice(heredoc + 2);
      if (name === "" || delimiter === "") throw new FileCommandError(`${file}: invalid heredoc line ${JSON.stringify(line)}`);
      const end = lines.indexOf(delimiter, i + 1);
      if (end === -1) throw new FileCommandError(`${file}: matching delimiter not found '${delimiter}'`);
      out[name] = lines.slice(i + 1, end).join("\n");
      i = end;
    } else if (equals > 0) {
      out[line.slice(0, equals)] = line.slice(equals + 1);
    } else {
      throw new FileCommandError(`${file}: invalid format ${JSON.stringify(line)}`);
    }
  }
  return out;
}

export interface Annotation {
  readonly level: "error" | "warning" | "notice";
  readonly message: string;
}

/** Reads workflow commands from a step's output: masks to add and annotations. */
export function readWorkflowCommands(output: string): { masks: string[]; annotations: Annotation[] } {
  const masks: string[] = [];
  const annotations: Annotation[] = [];
  for (const line of output.split(/\r?\n/)) {
    const match = /^::(add-mask|error|warning|notice)(?: [^:]*)?::(.*)$/.exec(line);
    if (match === null) continue;
    const [, command = "", value = ""] = match;
    const decoded = value.replaceAll("%0D", "\r").replaceAll("%0A", "\n").replaceAll("%25", "%");
    if (command === "add-mask") {
      if (decoded.trim() !== "") masks.push(decoded);
    } else {
      annotations.push({ level: command as Annotation["level"], message: decoded });
    }
  }
  return { masks, annotations };
}

/** Replaces every secret value in `text` by `***`, longest first (as the runner's log masker). */
export function mask(text: string, secrets: Iterable<string>): string {
  const values = [...new Set(secrets)].filter((s) => s.length >= 4).sort((a, b) => b.length - a.length);
  let out = text;
  for (const value of values) out = out.split(value).join("***");
  return out;
}
