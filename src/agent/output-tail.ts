/**
 * The last words of an agent, for a terminal line: its output's last few non-empty lines,
 * without colours, cursor moves or other control characters, each cut to a width. The output
 * is the agent's as naruto keeps it (redacted where it entered: run-agent.ts), so nothing here
 * can show a secret the record would not.
 */

/** How many lines, and how wide each. */
export const TAIL_LINES = 5;
export const TAIL_WIDTH = 200;

// Colour and cursor sequences (CSI, OSC), then any other control character but a tab.
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]/g;
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/**
 * @example outputTail("…\nError: Not logged in · Please run /login\n\n") → ["…", "Error: Not logged in · Please run /login"]
 */
export function outputTail(output: string, options: { readonly lines?: number; readonly width?: number } = {}): string[] {
  const lines = options.lines ?? TAIL_LINES;
  const width = options.width ?? TAIL_WIDTH;
  return output
    .replace(ESCAPES, "")
    .split(/\r\n|\r|\n/)
    .map((line) => line.replace(CONTROLS, "").replace(/\t/g, " ").trimEnd())
    .filter((line) => line.trim() !== "")
    .slice(-lines)
    .map((line) => (line.length > width ? `${line.slice(0, width - 1)}…` : line));
}
