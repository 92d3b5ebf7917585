/** Who a checkpoint is by. */
export interface Identity {
  readonly name: string;
  readonly email: string;
}

export const DEFAULT_AUTHOR: Identity = { name: "naruto", email: "naruto@users.noreply.github.com" };

export interface CheckpointMessage {
  readonly title: string;
  readonly body?: string;
  readonly mission: string;
  readonly item: string;
  readonly attempt: number;
  readonly agent: string;
}

/**
 * The checkpoint's message: title, optional body, then the trailers the queue and reports read.
 *
 * @example formatCheckpointMessage({ title: "Validate input", mission: "m-1", item: "users-api", attempt: 1, agent: "claude" })
 * → "Validate input\n\nNaruto-Mission: m-1\nNaruto-Item: users-api\nNaruto-Attempt: 1\nNaruto-Agent: claude\n"
 */
export function formatCheckpointMessage(m: CheckpointMessage): string {
  const title = oneLine(m.title) || m.item;
  const body = (m.body ?? "").replace(/\r\n?/g, "\n").trim();
  const trailers = [
    `Naruto-Mission: ${oneLine(m.mission)}`,
    `Naruto-Item: ${oneLine(m.item)}`,
    `Naruto-Attempt: ${m.attempt}`,
    `Naruto-Agent: ${oneLine(m.agent)}`,
  ].join("\n");
  return `${[title, body, trailers].filter((part) => part !== "").join("\n\n")}\n`;
}

// A trailer or title is one line: a newline would let text forge extra trailers.
function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
}
