/**
 * GitHub's size limits, enforced before a request is sent so that GitHub never rejects naruto's
 * output at run time (PLATFORM.md "GitHub API"). Text that may be long (comments, check-run
 * output) is cut with a note and a link to the full content; inputs that must stay small
 * (workflow dispatch) are refused with a typed error, because the caller must pass ids, not text.
 */
import { InputLimitError } from "./errors.ts";

/** Comment, issue and pull-request bodies: GitHub answers 422 "Body is too long" above this. */
export const COMMENT_BODY_LIMIT = 65_536;
/** Check-run `output.summary` and `output.text`. */
export const CHECK_TEXT_LIMIT = 65_535;
/** `workflow_dispatch`: at most 25 inputs and 65,535 characters in total. */
export const DISPATCH_MAX_INPUTS = 25;
export const DISPATCH_MAX_CHARS = 65_535;

/**
 * Cuts `text` to at most `limit` characters, ending with a note that says how much was left out
 * and where to read all of it. Text within the limit is returned unchanged.
 *
 * The cut falls at the end of a whole line when one ends near it, and a fenced code block it
 * leaves open is closed before the note: a cut inside a ```mermaid block must not post half a
 * graph (an error box) with the note shown as code. Lengths are UTF-16 code units, never fewer
 * than the characters GitHub counts, and a cut never splits a surrogate pair.
 *
 * @example truncate(body, { limit: COMMENT_BODY_LIMIT, link: runUrl })
 */
export function truncate(text: string, options: { limit: number; link?: string | undefined }): string {
  const { limit } = options;
  if (text.length <= limit) return text;
  // The note's length depends on the number it carries; size it for the worst case first.
  const note = (hidden: number) => `\n\n… truncated: ${hidden} characters not shown.${options.link ? ` Full text: ${options.link}` : ""}`;
  const room = Math.max(limit - note(text.length).length - CLOSE_FENCE.length, 0);
  let cut = room;
  const newline = text.lastIndexOf("\n", room);
  if (newline > 0 && room - newline <= LINE_SEARCH) cut = newline;
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1; // a high surrogate would be left alone
  const kept = text.slice(0, cut);
  const result = kept + (endsInFence(kept) ? CLOSE_FENCE : "") + note(text.length - cut);
  return result.length <= limit ? result : result.slice(0, limit);
}

const CLOSE_FENCE = "\n```";
/** How far back a cut looks for the end of a line before it cuts mid-line. */
const LINE_SEARCH = 4096;

/** Whether the text ends inside a fenced code block: an odd number of fence lines. */
function endsInFence(text: string): boolean {
  return text.split("\n").filter((line) => /^ {0,3}(```|~~~)/.test(line)).length % 2 === 1;
}

export type DispatchInputs = Readonly<Record<string, string | number | boolean>>;

/**
 * Refuses inputs that GitHub would reject: more than 25 keys, or more than 65,535 characters
 * counting keys and values. naruto passes the mission id and item ids; everything else is read
 * from the mission state.
 */
export function checkDispatchInputs(inputs: DispatchInputs): void {
  const keys = Object.keys(inputs);
  if (keys.length > DISPATCH_MAX_INPUTS) {
    throw new InputLimitError(
      `workflow dispatch: ${keys.length} inputs, GitHub accepts at most ${DISPATCH_MAX_INPUTS}: pass ids and read the rest from the mission state`,
    );
  }
  // JSON length counts keys, values and the punctuation: never less than GitHub's own count.
  const size = JSON.stringify(inputs).length;
  if (size > DISPATCH_MAX_CHARS) {
    throw new InputLimitError(
      `workflow dispatch: inputs are ${size} characters, GitHub accepts at most ${DISPATCH_MAX_CHARS}: pass ids, never prompts or plans`,
    );
  }
}
