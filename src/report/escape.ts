/**
 * Markdown escaping for text naruto did not write: the request, plan titles, reasons, the review
 * agent's findings. Rendered on GitHub, such text must not ping people (`@everyone`), link
 * issues (`#1`), inject HTML (`<img src=x>`), or break the table or list it sits in, nor show a
 * credential: known formats are redacted (src/redact/) before the text is cut and escaped
 * (escaping turns `ghs_…` into `ghs\_…`, which no later look would recognise; a cut keeps half).
 */
import { sanitizeUntrustedText } from "../sanitize/index.ts";
import { redactFormats } from "../redact/index.ts";

// A zero-width space after `@` or `#` keeps the text readable and stops GitHub from linking it
// (the trick Renovate uses in release notes).
const ZWSP = "&#8203;";

/**
 * Untrusted text as it will be shown escaped: invisible characters and HTML comments go (the
 * rendered page would hide neither from naruto's reader, but they say nothing a reader can use),
 * markup stays, to be escaped and seen.
 */
function displayText(text: string): string {
  return sanitizeUntrustedText(text).replace(/<!--[\s\S]*?(?:-->|$)/g, "");
}

/**
 * One line of untrusted text as inline markdown: hidden characters removed, whitespace
 * collapsed, HTML and markdown syntax escaped, mentions and issue references defused, and cut
 * to `max` characters (of the source text).
 *
 * @example inlineText("@everyone <img src=x> *hi*") → "@&#8203;everyone &lt;img src=x&gt; \\*hi\\*"
 */
export function inlineText(text: string, max = 300): string {
  const flat = redactFormats(displayText(text)).replace(/\s+/g, " ").trim();
  return escapeLineStart(escapeMarkdown(truncate(flat, max)));
}

/**
 * Untrusted text of several lines as a blockquote, each line escaped like {@link inlineText},
 * at most `maxLines` lines.
 */
export function quoteBlock(text: string, { maxLines = 40, maxLineChars = 500 } = {}): string {
  const lines = redactFormats(displayText(text)).trim().split("\n");
  const shown = lines.slice(0, maxLines).map((l) => {
    const line = escapeLineStart(escapeMarkdown(truncate(l.replace(/\s+/g, " ").trim(), maxLineChars)));
    return line === "" ? ">" : `> ${line}`;
  });
  if (lines.length > maxLines) shown.push(`> … (${lines.length - maxLines} more lines)`);
  return shown.length === 0 || (shown.length === 1 && shown[0] === ">") ? "> (empty)" : shown.join("\n");
}

function escapeMarkdown(text: string): string {
  return (
    text
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/[\\`*_[\]|~]/g, "\\$&")
      .replace(/([@#])/g, `$1${ZWSP}`)
      // Nor may it become a link GitHub draws by itself (`https://…`, `www.…`).
      .replace(/:\/\//g, `:${ZWSP}//`)
      .replace(/\bwww\./gi, (m) => `${m.slice(0, 3)}${ZWSP}.`)
  );
}

/**
 * What would make a line of text into structure when it starts a line (a paragraph of its own,
 * a quoted line): a list item (`- `, `+ `, `1. `, `1) `), a thematic break or a setext
 * underline (`---`, `===`). `*`, `#`, `>`, `|` and backticks are escaped everywhere already.
 * A backslash before the punctuation keeps the character and takes its meaning away; mid-line,
 * where the text may also land, `\-` renders as `-` all the same.
 *
 * @example escapeLineStart("1. first") → "1\\. first"
 */
function escapeLineStart(line: string): string {
  return line.replace(/^([-+=])/, "\\$1").replace(/^(\d{1,9})([.)])/, "$1\\$2");
}

/**
 * Text inside an inline code span: nothing in it renders, so only what would end the span or
 * the line is changed (backticks, line breaks). A ref name like `feat|pipe` shows as written.
 * In a table cell use {@link cellCode}.
 *
 * @example codeSpan("naruto/m-1/a") → "`naruto/m-1/a`"
 */
export function codeSpan(text: string, max = 120): string {
  const flat = redactFormats(displayText(text)).replace(/`/g, "'").replace(/\s+/g, " ").trim();
  return `\`${truncate(flat, max) || " "}\``;
}

/**
 * {@link codeSpan} for a GFM table cell: there a `|` ends the cell even inside a code span, so it
 * is written `\|`, which GFM shows as `|` (outside a table the backslash would show).
 */
export function cellCode(text: string, max = 120): string {
  return codeSpan(text, max).replace(/\|/g, "\\|");
}

/** `text` cut to at most `max` characters, ending in `…` when cut. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, Math.max(max - 1, 0));
  // Never leave half of a surrogate pair (an emoji cut in two renders as garbage).
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/**
 * A markdown link when `url` is an http(s) URL, else null. The URL is normalized by `URL`
 * (which percent-encodes spaces, quotes and angle brackets) and its parentheses encoded, so it
 * cannot end the link early.
 */
export function safeLink(label: string, url: string | undefined | null): string | null {
  if (!url) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return null;
  const href = parsed.href.replace(/\(/g, "%28").replace(/\)/g, "%29");
  return `[${escapeMarkdown(label)}](${href})`;
}
