/**
 * What a step tells the runner: the environment files (`GITHUB_OUTPUT`, `GITHUB_ENV`,
 * `GITHUB_STATE`, `GITHUB_PATH`) and the workflow commands it prints (`::add-mask::`,
 * `::error::`, `::warning::`, `::set-output`, `::stop-commands::`, the older `##[…]` form), read
 * the way actions/runner reads them. @actions/core writes the heredoc form `name<<ghadelimiter_…`.
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

/** A workflow command the runner acted on. */
export interface ProcessedCommand {
  readonly name: string;
  readonly properties: Readonly<Record<string, string>>;
  readonly data: string;
}

export interface WorkflowCommands {
  readonly masks: string[];
  readonly annotations: Annotation[];
  /** What `::set-output name=…::` set (the runner still honours it). */
  readonly outputs: Record<string, string>;
  /** Every command acted on, in order (`stop-commands` and its resume token included). */
  readonly commands: ProcessedCommand[];
  /** A command that failed the step (`set-env`, `add-path`: disabled on the runner). */
  readonly failed: boolean;
}

/** The commands the runner knows (actions/runner's ActionCommandManager and its extensions). */
const REGISTERED = [
  "add-mask",
  "error",
  "warning",
  "notice",
  "debug",
  "set-output",
  "save-state",
  "set-env",
  "add-path",
  "group",
  "endgroup",
  "echo",
  "add-matcher",
  "remove-matcher",
  "stop-commands",
];
// What .NET's TrimStart removes before a line is read as a `::` command (Char.IsWhiteSpace).
const LEADING_SPACE = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*/;

const unescapeCommand = (text: string, extra: readonly [string, string][] = []) =>
  [...extra, ["%0D", "\r"], ["%0A", "\n"], ["%25", "%"]].reduce((t, [from, to]) => t.replaceAll(from as string, to as string), text);

/** `::name k=v,k=v::data` after leading whitespace (the runner's TryParseV2). */
function parseV2(line: string, known: ReadonlySet<string>): ProcessedCommand | null {
  const message = line.slice(LEADING_SPACE.exec(line)?.[0].length ?? 0);
  if (!message.startsWith("::")) return null;
  const end = message.indexOf("::", 2);
  if (end < 0) return null;
  const info = message.slice(2, end);
  const space = info.indexOf(" ");
  const name = (space < 0 ? info : info.slice(0, space)).toLowerCase();
  if (!known.has(name)) return null;
  const properties: Record<string, string> = {};
  if (space > 0) {
    for (const pair of info
      .slice(space + 1)
      .trim()
      .split(",")
      .filter((p) => p !== "")) {
      const eq = pair.indexOf("=");
      if (eq > 0 && eq < pair.length - 1)
        properties[pair.slice(0, eq)] = unescapeCommand(pair.slice(eq + 1), [
          ["%3A", ":"],
          ["%2C", ","],
        ]);
    }
  }
  return { name, properties, data: unescapeCommand(message.slice(end + 2)) };
}

/** `##[name k=v;k=v]data` anywhere in the line (the runner's older TryParse). */
function parseV1(line: string, known: ReadonlySet<string>): ProcessedCommand | null {
  const start = line.indexOf("##[");
  if (start < 0) return null;
  const close = line.indexOf("]", start);
  if (close < 0) return null;
  const info = line.slice(start + 3, close);
  const space = info.indexOf(" ");
  const name = (space < 0 ? info : info.slice(0, space)).toLowerCase();
  if (!known.has(name)) return null;
  const properties: Record<string, string> = {};
  if (space > 0) {
    for (const pair of info
      .slice(space + 1)
      .split(";")
      .filter((p) => p !== "")) {
      const eq = pair.indexOf("=");
      if (eq > 0 && eq < pair.length - 1)
        properties[pair.slice(0, eq)] = unescapeCommand(pair.slice(eq + 1), [
          ["%3B", ";"],
          ["%5D", "]"],
        ]);
    }
  }
  return {
    name,
    properties,
    data: unescapeCommand(line.slice(close + 1), [
      ["%3B", ";"],
      ["%5D", "]"],
    ]),
  };
}

/**
 * Reads workflow commands from a step's output as the runner does: lines end at `\n`, `\r\n`
 * and a lone `\r` (.NET's ReadLine); a `::` command may follow leading whitespace; the older
 * `##[…]` form counts anywhere in a line; command names are case-insensitive; after
 * `::stop-commands::TOKEN` nothing is acted on until `::TOKEN::`.
 */
export function readWorkflowCommands(output: string): WorkflowCommands {
  const result: WorkflowCommands = { masks: [], annotations: [], outputs: {}, commands: [], failed: false };
  const known = new Set(REGISTERED);
  let stopToken: string | null = null;
  let failed = false;
  for (const line of output.split(/\r\n|\r|\n/)) {
    if (line === "") continue;
    const command = parseV2(line, known) ?? parseV1(line, known);
    if (command === null) continue;
    if (stopToken !== null) {
      if (command.name !== stopToken) continue;
      known.delete(stopToken);
      stopToken = null;
      result.commands.push(command);
      continue;
    }
    result.commands.push(command);
    switch (command.name) {
      case "stop-commands":
        stopToken = command.data.toLowerCase();
        known.add(stopToken);
        break;
      case "add-mask":
        if (command.data.trim() !== "") result.masks.push(command.data);
        break;
      case "error":
      case "warning":
      case "notice":
        result.annotations.push({ level: command.name, message: command.data });
        break;
      case "set-output":
        if (command.properties["name"]) result.outputs[command.properties["name"]] = command.data;
        break;
      case "set-env":
      case "add-path":
        // Disabled unless ACTIONS_ALLOW_UNSECURE_COMMANDS: the runner fails the step.
        result.annotations.push({ level: "error", message: `Unable to process command '${line}' successfully.` });
        failed = true;
        break;
    }
  }
  return { ...result, failed };
}

/** Replaces every secret value in `text` by `***`, longest first (as the runner's log masker). */
export function mask(text: string, secrets: Iterable<string>): string {
  const values = [...new Set(secrets)].filter((s) => s.length >= 4).sort((a, b) => b.length - a.length);
  let out = text;
  for (const value of values) out = out.split(value).join("***");
  return out;
}
