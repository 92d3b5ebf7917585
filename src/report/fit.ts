/**
 * Fitting a rendering into GitHub's comment limit: fixed parts are kept whole, and lists (items,
 * findings) share what is left, each cut with a note that says how much was left out.
 */

/** GitHub refuses a comment (or an issue or PR body) longer than this many characters. */
export const COMMENT_LIMIT = 65_536;

// Room for what a caller may add around a rendering (a link line, a footer) without going over.
const MARGIN = 512;

/** A list that may be cut: its lines, and the note that replaces the lines left out. */
export interface FlexibleList {
  /** Lines always kept, joined to the list without a blank line (a table's header). */
  readonly head?: readonly string[];
  readonly lines: readonly string[];
  readonly note: (hidden: number) => string;
  /** Its share of the room when lists must be cut; default 1. */
  readonly weight?: number;
}

export type Part = string | FlexibleList;

/**
 * Joins the parts with blank lines, cutting the lists so the whole stays within `limit`
 * characters. Lists that fit are kept whole; the room they leave goes to the others.
 *
 * @example assemble([header, { lines: rows, note: (n) => `… and ${n} more items` }], 65_536)
 */
export function assemble(parts: readonly Part[], limit: number = COMMENT_LIMIT): string {
  const fixed = parts.filter((p): p is string => typeof p === "string");
  const lists = parts.filter((p): p is FlexibleList => typeof p !== "string");
  const separators = 2 * Math.max(parts.length - 1, 0);
  const heads = lists.reduce((n, l) => n + sizeOf(l.head ?? []), 0);
  let room = Math.max(limit - MARGIN - separators - heads - fixed.reduce((n, p) => n + p.length, 0), 0);
  const budget = new Map<FlexibleList, number>();
  // Water-filling: give every list its weighted share; lists that need less return the rest.
  let open = lists.filter((l) => l.lines.length > 0);
  for (const l of lists) if (l.lines.length === 0) budget.set(l, 0);
  while (open.length > 0) {
    const weights = open.reduce((n, l) => n + (l.weight ?? 1), 0);
    const small = open.filter((l) => sizeOf(l.lines) <= (room * (l.weight ?? 1)) / weights);
    if (small.length === 0) {
      for (const l of open) budget.set(l, Math.floor((room * (l.weight ?? 1)) / weights));
      break;
    }
    for (const l of small) {
      budget.set(l, sizeOf(l.lines));
      room -= sizeOf(l.lines);
    }
    open = open.filter((l) => !small.includes(l));
  }
  const render = (l: FlexibleList) => [...(l.head ?? []), ...fitLines(l, budget.get(l) ?? 0)].join("\n");
  const text = parts.map((p) => (typeof p === "string" ? p : render(p))).join("\n\n");
  // The shares above are exact; this only guards against a fixed part alone over the limit.
  return cutAtLine(text, limit);
}

const CUT_NOTE = "\n\n_… cut here to stay within GitHub's comment limit._";
const CLOSE_FENCE = "\n```";

/**
 * `text` cut to at most `limit` characters at the end of a whole line, with a note; a code block
 * left open by the cut is closed first, so the note (and whatever a caller appends) is never
 * shown as code and a Mermaid block is never drawn from half a graph.
 */
export function cutAtLine(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const room = limit - CUT_NOTE.length - CLOSE_FENCE.length;
  if (room <= 0) return text.slice(0, limit);
  const newline = text.lastIndexOf("\n", room);
  const kept = text.slice(0, newline > 0 ? newline : room);
  return `${kept}${openFence(kept) ? CLOSE_FENCE : ""}${CUT_NOTE}`;
}

/** Whether the text ends inside a fenced code block (an odd number of fence lines). */
function openFence(text: string): boolean {
  return text.split("\n").filter((line) => /^ {0,3}(```|~~~)/.test(line)).length % 2 === 1;
}

/** As many lines as fit in `budget` characters (newlines counted), then the note. */
export function fitLines(list: FlexibleList, budget: number): string[] {
  if (sizeOf(list.lines) <= budget) return [...list.lines];
  const out: string[] = [];
  let used = 0;
  for (const [i, line] of list.lines.entries()) {
    const note = list.note(list.lines.length - i);
    if (used + line.length + 1 + note.length > budget) {
      out.push(note);
      return out;
    }
    out.push(line);
    used += line.length + 1;
  }
  return out;
}

function sizeOf(lines: readonly string[]): number {
  return lines.reduce((n, l) => n + l.length + 1, 0);
}
