/**
 * Secrets cut in pieces by whitespace (issue 31): an agent that prints a key in halves on two
 * lines, with a space in the middle, in chunks of five on lines of their own, or as `\n` escapes
 * in a JSON string. The text is read without its separators — whitespace, and the escapes `\n`,
 * `\r`, `\t` — where a known value's form is looked for; a match is cut out of the text with
 * everything between its first and last character.
 */
import { REDACTED } from "./redacted.ts";

/** Whitespace, and the JSON escapes of a line break or a tab. */
const SEPARATORS = /\s+|(?:\\[nrt])+/g;

/** `text` without its separators. */
export function withoutSeparators(text: string): string {
  return text.replace(SEPARATORS, "");
}

/** `text` without separators, and where each of its characters is in `text`. */
function compact(text: string): { readonly chars: string; readonly at: Int32Array } {
  const at = new Int32Array(text.length);
  let chars = "";
  let n = 0;
  let from = 0;
  SEPARATORS.lastIndex = 0;
  for (let m = SEPARATORS.exec(text); ; m = SEPARATORS.exec(text)) {
    const end = m === null ? text.length : m.index;
    chars += text.slice(from, end);
    for (let i = from; i < end; i++) at[n++] = i;
    if (m === null) break;
    from = m.index + m[0].length;
  }
  return { chars, at: at.subarray(0, n) };
}

/**
 * `text` with every match of `forms` (a global pattern of separator-free forms) found across
 * separators replaced by `[redacted]`. A match without a separator inside was already redacted.
 */
export function redactSplit(text: string, forms: RegExp): string {
  if (!/\s|\\[nrt]/.test(text)) return text;
  const { chars, at } = compact(text);
  let out = "";
  let last = 0;
  forms.lastIndex = 0;
  for (let m = forms.exec(chars); m !== null; m = forms.exec(chars)) {
    const start = at[m.index] ?? 0;
    const end = (at[m.index + m[0].length - 1] ?? start) + 1;
    out += text.slice(last, start) + REDACTED;
    last = end;
  }
  return last === 0 ? text : out + text.slice(last);
}

/**
 * Where the tail of `text` that could be the start of one of `forms` begins (separators aside);
 * `text.length` when no tail is. A tail that is a whole form was redacted already.
 */
export function pendingStart(text: string, forms: readonly string[]): number {
  const longest = forms.reduce((n, f) => Math.max(n, f.length), 0);
  // Only the last characters can begin a form that the next text completes.
  const window = text.slice(Math.max(0, text.length - longest * 8));
  const offset = text.length - window.length;
  const { chars, at } = compact(window);
  let earliest = text.length;
  for (const form of forms) {
    for (let p = Math.max(0, chars.length - form.length + 1); p < chars.length; p++) {
      if (chars.charCodeAt(p) !== form.charCodeAt(0)) continue;
      if (form.startsWith(chars.slice(p))) {
        earliest = Math.min(earliest, offset + (at[p] ?? 0));
        break;
      }
    }
  }
  return earliest;
}
