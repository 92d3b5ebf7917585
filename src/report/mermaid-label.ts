/**
 * Text inside a Mermaid node label (`n0["…"]`), in any script. Titles come from plans that may
 * come from comments, so nothing in one may end the label or start Mermaid syntax; and a title in
 * Devanagari, Arabic or Thai must keep its vowel signs (`\p{M}`), a decomposed `é` its accent, an
 * emoji its joiners. So characters are kept and escaped, never deleted: Mermaid reads `#name;`
 * and `#123;` in a label as entity codes (its `encodeEntities`) and shows them as `&name;` and
 * `&#123;`, which the browser draws as the character itself.
 */
import { redactFormats } from "../redact/index.ts";

/**
 * What is written as an entity code: `"` would end the label, `#` would start an entity code,
 * `%` could start a `%%{init}%%` directive (Mermaid looks for those anywhere in the text), a
 * backtick at the start makes a markdown label, `<`, `>` and `&` would be HTML, and `:` lets
 * Mermaid's `style…:…#…;` clean-up eat the `;` of an entity code that follows it.
 */
const ENTITY: Readonly<Record<string, string>> = {
  '"': "#quot;",
  "#": "#35;",
  "%": "#37;",
  "`": "#96;",
  "<": "#lt;",
  ">": "#gt;",
  "&": "#amp;",
  ":": "#58;",
};

/**
 * Controls and invisible format characters (bidi overrides, zero-width spaces) go; the joiners
 * and variation selectors that scripts and emoji are made of stay (ZWNJ, ZWJ, VS15, VS16).
 */
// biome-ignore lint/suspicious/noMisleadingCharacterClass: the class lists code points one by one, on purpose
const INVISIBLE = /(?![\u200c\u200d\ufe0e\ufe0f])[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\u2028\u2029]/gu;

const graphemes = new Intl.Segmenter("und", { granularity: "grapheme" });

/**
 * A title as the text of a label: credentials redacted, NFC, invisible characters removed,
 * whitespace collapsed, at most `max` user-perceived characters (never half an `é` or half a 👩‍💻;
 * Mermaid wraps a label at 200 px, so 80 make at most about four lines), then escaped for Mermaid.
 *
 * @example mermaidLabel('नमस्ते "x"') → "नमस्ते #quot;x#quot;"
 */
export function mermaidLabel(text: string, max = 80): string {
  const clean = redactFormats(text).normalize("NFC").replace(/\s+/g, " ").replace(INVISIBLE, "").replace(/\s+/g, " ").trim();
  const chars = [...graphemes.segment(clean)].map((s) => s.segment);
  const cut =
    chars.length <= max
      ? clean
      : `${chars
          .slice(0, max - 1)
          .join("")
          .trimEnd()}…`;
  return cut.replace(/["#%`<>&:]/g, (c) => ENTITY[c] ?? c);
}

/** The label of an item's node: `id: title`, or the id alone when the title says nothing more. */
export function itemLabel(item: { readonly id: string; readonly title: string }): string {
  const title = mermaidLabel(item.title);
  const id = mermaidLabel(item.id, 64) || "item";
  return title === "" || title === id ? id : `${id}${ENTITY[":"]} ${title}`;
}
