/**
 * The inline pass of the sanitizer (../sanitize-untrusted.ts): tags and their attributes, code
 * spans, images and links, read left to right as cmark reads inlines.
 */
import { labelKey } from "./blocks.ts";

/** Elements GitHub's sanitizer keeps; any other tag is dropped from the page (not its content). */
const VISIBLE_TAGS = new Set(
  "a abbr b bdo blockquote br caption cite code dd del details dfn div dl dt em figcaption figure h1 h2 h3 h4 h5 h6 h7 h8 hr i img ins kbd li mark ol p picture pre q rp rt ruby s samp small source span strike strong sub summary sup table tbody td tfoot th thead time tr tt u ul var video wbr".split(
    " ",
  ),
);
/** The attributes that are not hidden text: where a link goes, what an image shows. */
const KEPT_ATTRIBUTES = new Set(["href", "src"]);
/** GFM's tag filter escapes these, so they show as text. */
const SHOWN_AS_TEXT = new Set("title textarea style xmp iframe noembed noframes script plaintext".split(" "));

const STRICT_OPEN = /<([A-Za-z][A-Za-z0-9-]*)((?:\s+[A-Za-z_:][A-Za-z0-9_.:-]*(?:\s*=\s*(?:[^\s"'=<>`]+|'[^']*'|"[^"]*"))?)*)\s*(\/?)>/y;
const STRICT_ATTRIBUTE = /\s+([A-Za-z_:][A-Za-z0-9_.:-]*)(?:\s*=\s*(?:[^\s"'=<>`]+|'[^']*'|"[^"]*"))?/g;
const STRICT_CLOSE = /<\/([A-Za-z][A-Za-z0-9-]*)\s*>/y;
const AUTOLINK =
  /<(?:[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*|[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*)>/y;
/** Raw HTML that the browser treats as a comment, with what must follow for it to be one. */
const STRICT_HIDDEN: ReadonlyArray<readonly [RegExp, string]> = [
  [/<\?[\s\S]*?\?>/y, "?>"],
  [/<!\[CDATA\[[\s\S]*?\]\]>/y, "]]>"],
  [/<![A-Za-z][^>]*>/y, ">"],
];
const TITLE = /"(?:[^"\\]|\\[\s\S])*"|'(?:[^'\\]|\\[\s\S])*'|\((?:[^()\\]|\\[\s\S])*\)/y;
const LABEL = /\[((?:[^[\]\\]|\\[\s\S]){0,999})\]/y;
const MAX_LABEL = 999;
/** cmark gives up on a link destination nested deeper than this. */
const MAX_PARENTHESES = 32;

interface Scanned {
  readonly text: string;
  /** Nothing after this may be shown. */
  readonly cut: boolean;
}

interface Markup {
  readonly text: string;
  readonly end: number;
}

/**
 * One run of lines, left to right as cmark reads inlines. In raw HTML (`html`) the browser's tag
 * rules apply and there are no escapes or code spans; Markdown is still stripped there, in case
 * the block was not raw after all.
 */
export function scanInline(source: string, { html, links }: { html: boolean; links: ReadonlyMap<string, string> }): Scanned {
  const special = html ? /[<!\x5b\x5d]/g : /[\\`<!\x5b\x5d]/g;
  const openers: Array<{ image: boolean; out: number; text: number }> = [];
  const last = new Map<string, number>();
  const lastIndex = (closer: string) => last.get(closer) ?? last.set(closer, source.lastIndexOf(closer)).get(closer)!;
  let out = "";
  let i = 0;
  for (;;) {
    special.lastIndex = i;
    const found = special.exec(source);
    if (found === null) return { text: out + source.slice(i), cut: false };
    out += source.slice(i, found.index);
    i = found.index;
    const char = source[i];
    if (char === "\\") {
      out += source.slice(i, i + 2);
      i += 2;
    } else if (char === "`") {
      const end = codeSpanEnd(source, i);
      out += source.slice(i, end);
      i = end;
    } else if (char === "<") {
      const markup = html ? looseMarkup(source, i) : strictMarkup(source, i, lastIndex);
      if (markup === null) return { text: out, cut: true };
      out += markup.text;
      i = markup.end;
    } else if (char === "!" || char === "[") {
      const image = char === "!";
      if (image && source[i + 1] !== "[") {
        out += "!";
        i++;
        continue;
      }
      out += image ? "![" : "[";
      i += image ? 2 : 1;
      openers.push({ image, out: out.length, text: i });
    } else {
      const opener = openers.pop();
      const link = opener && closeLink(source, i, opener.text, links);
      if (!opener || !link) {
        out += "]";
        i++;
        continue;
      }
      // An image's alt text is not on the page.
      if (opener.image) out = out.slice(0, opener.out);
      out += `](${link.destination})`;
      i = link.end;
    }
  }
}

/** After a backtick run: past the code span it opens (kept as is), or past the run. */
function codeSpanEnd(source: string, start: number): number {
  const run = /`+/y;
  run.lastIndex = start;
  const length = run.exec(source)![0].length;
  const closing = /`+|\n/g;
  closing.lastIndex = start + length;
  for (let m = closing.exec(source); m !== null && m[0] !== "\n"; m = closing.exec(source)) {
    if (m[0].length !== length) continue;
    // One line only, and no `|` (a table splits cells first): never longer than cmark's.
    return source.slice(start, m.index).includes("|") ? start + length : m.index + length;
  }
  return start + length;
}

function strictMarkup(source: string, at: number, lastIndex: (closer: string) => number): Markup {
  for (const pattern of [STRICT_OPEN, STRICT_CLOSE]) {
    pattern.lastIndex = at;
    const tag = pattern.exec(source);
    if (tag === null) continue;
    const name = tag[1]!;
    if (SHOWN_AS_TEXT.has(name.toLowerCase())) break;
    const closing = pattern === STRICT_CLOSE;
    const attributes = closing ? [] : [...tag[2]!.matchAll(STRICT_ATTRIBUTE)].map((m) => ({ name: m[1]!, text: m[0].trim() }));
    return { text: formatTag({ name, attributes, closing, selfClosing: tag[3] === "/" }), end: pattern.lastIndex };
  }
  AUTOLINK.lastIndex = at;
  if (AUTOLINK.exec(source) !== null) return { text: source.slice(at, AUTOLINK.lastIndex), end: AUTOLINK.lastIndex };
  for (const [pattern, closer] of STRICT_HIDDEN) {
    // Without a closer further on, scanning for one at every `<` would take quadratic time.
    if (lastIndex(closer) <= at) continue;
    pattern.lastIndex = at;
    if (pattern.exec(source) !== null) return { text: "", end: pattern.lastIndex };
  }
  return { text: "<", end: at + 1 };
}

/** The browser's reading of `<` in raw HTML; null when it hides the rest. */
function looseMarkup(source: string, at: number): Markup | null {
  const closing = source[at + 1] === "/";
  const nameAt = at + (closing ? 2 : 1);
  if (!/[A-Za-z]/.test(source[nameAt] ?? "")) {
    if (!/[!?/]/.test(source[at + 1] ?? "")) return { text: "<", end: at + 1 };
    // `<!…>`, `<?…>`, `</ …>`: a bogus comment up to the next `>`.
    const end = source.indexOf(">", at);
    return end < 0 ? null : { text: "", end: end + 1 };
  }
  const name = /[^\s/>]*/y;
  name.lastIndex = nameAt;
  const tagName = name.exec(source)![0];
  if (SHOWN_AS_TEXT.has(tagName.toLowerCase())) return { text: "<", end: at + 1 };
  const attributes: Array<{ name: string; text: string }> = [];
  let i = name.lastIndex;
  for (;;) {
    while (/[\s/]/.test(source[i] ?? "")) i++;
    if (i >= source.length) return null;
    if (source[i] === ">") break;
    const start = i;
    const attribute = /=?[^\s/>=]*/y;
    attribute.lastIndex = i;
    const attributeName = attribute.exec(source)![0];
    i = attribute.lastIndex;
    const value = /\s*=\s*/y;
    value.lastIndex = i;
    if (value.exec(source) !== null) {
      i = value.lastIndex;
      const quote = source[i];
      if (quote === '"' || quote === "'") {
        const end = source.indexOf(quote, i + 1);
        if (end < 0) return null;
        i = end + 1;
      } else {
        while (i < source.length && !/[\s>]/.test(source[i]!)) i++;
      }
    }
    attributes.push({ name: attributeName, text: source.slice(start, i) });
  }
  const selfClosing = source[i - 1] === "/";
  return { text: formatTag({ name: tagName, attributes, closing, selfClosing }), end: i + 1 };
}

function formatTag(tag: { name: string; attributes: ReadonlyArray<{ name: string; text: string }>; closing: boolean; selfClosing: boolean }): string {
  if (!VISIBLE_TAGS.has(tag.name.toLowerCase())) return "";
  if (tag.closing) return `</${tag.name}>`;
  const kept = tag.attributes.filter((a) => KEPT_ATTRIBUTES.has(a.name.toLowerCase())).map((a) => ` ${a.text}`);
  return `<${tag.name}${kept.join("")}${tag.selfClosing ? " /" : ""}>`;
}

/**
 * At a `]` that closes `[` or `![`: the link it makes, inline (`](dest "title")`) or through a
 * reference definition (`][label]`, `][]`, `]`), as its destination and where it ends; null
 * when it makes none.
 */
function closeLink(source: string, at: number, textStart: number, links: ReadonlyMap<string, string>): { destination: string; end: number } | null {
  if (source[at + 1] === "(") {
    const inline = inlineTail(source, at + 1);
    if (inline !== null) return inline;
  }
  LABEL.lastIndex = at + 1;
  const label = LABEL.exec(source);
  const full = label !== null && label[1] !== "";
  if (!full && at - textStart > MAX_LABEL) return null;
  const key = labelKey(full ? label[1]! : source.slice(textStart, at));
  const destination = links.get(key);
  if (destination === undefined) return null;
  return { destination, end: label === null ? at + 1 : LABEL.lastIndex };
}

/** `(dest "title")` as cmark reads it: the destination, and where the `)` ends. */
function inlineTail(source: string, open: number): { destination: string; end: number } | null {
  let i = skipSpace(source, open + 1);
  const start = i;
  if (source[i] === "<") {
    const angle = /<(?:[^<>\n\\]|\\.)*>/y;
    angle.lastIndex = i;
    if (angle.exec(source) === null) return null;
    i = angle.lastIndex;
  } else {
    let depth = 0;
    for (; i < source.length; i++) {
      const char = source[i]!;
      if (char === "\\" && /[!-/:-@[-`{-~]/.test(source[i + 1] ?? "")) i++;
      else if (char === "(" && ++depth > MAX_PARENTHESES) return null;
      else if (char === ")" && depth-- === 0) break;
      else if (/[\s\u0000-\u001f\u007f]/.test(char)) break;
    }
    if (depth > 0) return null;
  }
  const destination = source.slice(start, i);
  const afterDestination = skipSpace(source, i);
  TITLE.lastIndex = afterDestination;
  const title = afterDestination > i ? TITLE.exec(source) : null;
  if (title !== null && !/\n[ \t]*\n/.test(title[0])) i = skipSpace(source, TITLE.lastIndex);
  else i = afterDestination;
  return source[i] === ")" ? { destination, end: i + 1 } : null;
}

/** Spaces and tabs, with at most one line break among them. */
function skipSpace(source: string, at: number): number {
  const space = /[ \t]*(?:\n[ \t]*)?/y;
  space.lastIndex = at;
  space.exec(source);
  return space.lastIndex;
}
