/**
 * The block pass of the sanitizer (../sanitize-untrusted.ts): which lines are raw HTML (where the
 * browser's looser tag rules apply), and the link reference and footnote definitions the page
 * does not show.
 */

/** Stands in for a removed comment until the end: NUL cannot survive the character pass. */
export const MARK = "\u0000";

interface Line {
  readonly text: string;
  /** In what may be a raw HTML block, where the browser's looser tag rules apply. */
  readonly html: boolean;
}

interface Blocks {
  readonly lines: readonly Line[];
  /** Link reference definitions by normalised label: their destinations. */
  readonly links: ReadonlyMap<string, string>;
  /** Nothing after these lines may be shown. */
  readonly cut: boolean;
}

type Paragraph = "none" | "open" | "table";

/** Blockquote and list markers before a line's content. */
const CONTAINER = /^(?:[ \t]{0,3}>[ \t]?|[ \t]{0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]+|$))*/;
const BLANK = /^[ \t]*$/;
const INDENTED = /^(?: {4}| {0,3}\t)/;
const BLOCK_NAMES =
  "address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul";
/** Raw HTML blocks that end on the line holding a closer (cmark's kinds 1, 3, 4 and 5). */
const HTML_UNTIL: ReadonlyArray<readonly [start: RegExp, end: RegExp]> = [
  [/^<(?:pre|script|style|textarea)(?=[\s>]|$)/i, /<\/(?:pre|script|style|textarea)>/i],
  [/^<\?/, /\?>/],
  [/^<!\[CDATA\[/, /\]\]>/],
  [/^<![A-Za-z]/, />/],
];
/** A line that may open any other raw HTML block (a comment, kinds 6 and 7): until a blank line. */
const HTML_START = new RegExp(`^(?:${MARK}|<\\/?[A-Za-z][A-Za-z0-9-]*(?=[\\s/>]|$))`);
/** Lines that end a paragraph (so a lazy footnote line too). */
const INTERRUPTS = new RegExp(
  `^ {0,3}(?:#{1,6}(?:[ \\t]|$)|\`{3,}|~{3,}|>|${MARK}|<(?:\\/?(?:${BLOCK_NAMES})(?=[\\s/>]|$)|(?:pre|script|style|textarea)(?=[\\s>]|$)|[?!])|(?:[-*_][ \\t]*){3,}$|[-+*][ \\t]+\\S|1[.)][ \\t]+\\S|\\[\\^[^\\]\\n]+\\]:)`,
  "i",
);
const ENDS_PARAGRAPH = /^ {0,3}(?:#{1,6}(?:[ \t]|$)|`{3,}|~{3,}|(?:[-*_][ \t]*){3,}$|=+[ \t]*$)/;
const TABLE_DELIMITER = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
// Any indentation: inside a list item, four spaces may still be the start of a paragraph.
const FOOTNOTE_DEFINITION = /^[ \t]*\[\^([^\]\n]+)\]:/;
const LINK_DEFINITION =
  /[ \t]*\[(?!\^)((?:[^[\]\\]|\\[\s\S]){1,999})\]:[ \t]*(?:\n[ \t>]*)?(<(?:[^<>\n\\]|\\.)*>|(?:[^\s()\\]|\\[\s\S]|\((?:[^\s()\\]|\\[\s\S]|\((?:[^\s()\\]|\\[\s\S])*\))*\))+)(?:(?:[ \t]+|[ \t]*\n[ \t>]*)("(?:[^"\\]|\\[\s\S])*"|'(?:[^'\\]|\\[\s\S])*'|\((?:[^()\\]|\\[\s\S])*\)))?[ \t]*(?=\n|$)/y;

/**
 * Reads the block structure as far as hiding goes: which lines may be raw HTML, which are link
 * reference definitions (removed; their destinations kept for the references) and which are
 * footnote definitions nothing refers to (removed). Where a definition's extent cannot be
 * known, the text is cut there.
 */
export function readBlocks(source: string): Blocks {
  const lines = source.split("\n");
  const offsets: number[] = [];
  lines.reduce((offset, line) => (offsets.push(offset), offset + line.length + 1), 0);
  const referenced = footnoteReferences(lines);
  const out: Line[] = [];
  const links = new Map<string, string>();
  const cut = (): Blocks => ({ lines: out, links, cut: true });
  let html: RegExp | null = null;
  let paragraph: Paragraph = "none";
  let quotes = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const prefix = CONTAINER.exec(line)![0];
    const content = line.slice(prefix.length);
    const depth = count(prefix, ">");
    const footnote = FOOTNOTE_DEFINITION.exec(content);
    if (footnote && !referenced.has(labelKey(footnote[1]!))) {
      // GitHub does not render it. Its extent is only certain at the top level outside HTML.
      if (html !== null || prefix !== "" || INDENTED.test(content)) return cut();
      i = footnoteEnd(lines, i) - 1;
      paragraph = "none";
      quotes = 0;
      continue;
    }
    if (html !== null || startsBlock(paragraph, prefix, depth > quotes)) {
      const definition = linkDefinition(source, offsets[i]! + prefix.length);
      if (definition !== null) {
        // In raw HTML it is text, and removing it could unbalance what hides the lines after.
        if (html !== null && /[<"'=]/.test(definition.text)) return cut();
        if (!links.has(definition.key)) links.set(definition.key, definition.destination);
        i += count(definition.text, "\n");
        quotes = depth;
        if (html === null) paragraph = "none";
        continue;
      }
    }
    quotes = depth;
    if (html !== null) {
      if (html === BLANK && BLANK.test(line)) {
        html = null;
        paragraph = "none";
        out.push({ text: line, html: false });
        continue;
      }
      out.push({ text: line, html: true });
      if (html !== BLANK && html.test(line)) html = null;
      continue;
    }
    const opened = htmlStart(content);
    if (opened !== null) {
      out.push({ text: line, html: true });
      html = opened.until;
      paragraph = "none";
      continue;
    }
    out.push({ text: line, html: false });
    paragraph = nextParagraph(paragraph, content);
  }
  return { lines: out, links, cut: false };
}

/** Whether a line may open a raw HTML block, and what ends it (null: this line). */
function htmlStart(content: string): { readonly until: RegExp | null } | null {
  const text = content.trimStart();
  for (const [start, end] of HTML_UNTIL) if (start.test(text)) return { until: end.test(text.slice(2)) ? null : end };
  return HTML_START.test(text) ? { until: BLANK } : null;
}

/** Whether a link reference definition may start here: at the start of a paragraph. */
function startsBlock(paragraph: Paragraph, prefix: string, newQuote: boolean): boolean {
  if (paragraph === "none" || newQuote) return true;
  const marker = /(?:[-+*]|(\d{1,9})[.)])[ \t]*$/.exec(prefix);
  if (marker === null) return false;
  // Only a bullet or `1.` may interrupt a paragraph; any list item may follow a table.
  return paragraph === "table" || marker[1] === undefined || marker[1] === "1";
}

function nextParagraph(paragraph: Paragraph, content: string): Paragraph {
  if (BLANK.test(content) || ENDS_PARAGRAPH.test(content)) return "none";
  if (paragraph === "none" && INDENTED.test(content)) return "none";
  if (paragraph === "open" && content.includes("|") && TABLE_DELIMITER.test(content)) return "table";
  return paragraph === "table" ? "table" : "open";
}

function linkDefinition(source: string, at: number): { text: string; key: string; destination: string } | null {
  LINK_DEFINITION.lastIndex = at;
  const match = LINK_DEFINITION.exec(source);
  if (match === null || !/\S/.test(match[1]!) || /\n[ \t>]*\n/.test(match[0])) return null;
  return { text: match[0], key: labelKey(match[1]!), destination: match[2]! };
}

/** The line after a top-level footnote definition: lazy lines, and indented ones after blanks. */
function footnoteEnd(lines: readonly string[], start: number): number {
  let j = start + 1;
  while (j < lines.length) {
    if (BLANK.test(lines[j]!)) {
      let k = j;
      while (k < lines.length && BLANK.test(lines[k]!)) k++;
      if (k === lines.length || !INDENTED.test(lines[k]!)) return j;
      j = k;
    } else if (!INDENTED.test(lines[j]!) && INTERRUPTS.test(lines[j]!)) {
      return j;
    }
    j++;
  }
  return j;
}

/**
 * Labels of footnote references that certainly render, so their definitions do. Erring towards
 * fewer: nothing after the first fence (it may be code), in raw HTML, in indented lines, in
 * anything that looks like a code span, a link destination or a tag.
 */
function footnoteReferences(lines: readonly string[]): Set<string> {
  const labels = new Set<string>();
  let html: RegExp | null = null;
  for (const line of lines) {
    const content = line.slice(CONTAINER.exec(line)![0].length);
    if (/^[ \t]*(?:`{3,}|~{3,})/.test(content)) break;
    if (html !== null) {
      if (html === BLANK ? BLANK.test(line) : html.test(line)) html = null;
      continue;
    }
    const opened = htmlStart(content);
    if (opened !== null) {
      html = opened.until;
      continue;
    }
    if (INDENTED.test(content)) continue;
    const plain = content
      .replace(FOOTNOTE_DEFINITION, "")
      .replace(/`+[^`]*(?:`+|$)/g, "")
      .replace(/\]\([^)]*\)?/g, "]")
      .replace(/<[^>]*>?/g, "");
    for (const [, label] of plain.matchAll(/\[\^([^\]\n]+)\]/g)) labels.add(labelKey(label!));
  }
  return labels;
}

/** cmark's label matching: case-folded, whitespace collapsed. */
export function labelKey(label: string): string {
  return label.trim().replace(/\s+/g, " ").toUpperCase().toLowerCase();
}

function count(text: string, char: string): number {
  return text.split(char).length - 1;
}
