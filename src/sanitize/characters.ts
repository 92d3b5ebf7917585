/**
 * The characters pass of the sanitizer (../sanitize-untrusted.ts): what no rendered page shows —
 * format characters, default-ignorables, lone surrogates, controls — written as characters or as
 * character references.
 */

export const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}\p{Cs}\u0000-\u0008\u000b-\u001f\u007f-\u009f]/gu;
const INVISIBLE_ONE = new RegExp(`^${INVISIBLE.source}$`, "u");
const REFERENCE = /&(?:#[xX]([0-9a-fA-F]{1,6})|#([0-9]{1,7})|([A-Za-z][A-Za-z0-9]{1,31}));/g;
/** The named references (HTML5) that stand for an invisible character. */
const INVISIBLE_NAMES = new Set(
  "shy zwnj zwj lrm rlm ZeroWidthSpace NegativeVeryThinSpace NegativeThinSpace NegativeMediumSpace NegativeThickSpace NoBreak ApplyFunction af InvisibleTimes it InvisibleComma ic".split(
    " ",
  ),
);

export function removeInvisibleReferences(text: string): string {
  // One pass: in `&#x2&#x200B;00B;` the page shows the text `&#x200B;`.
  return text.replace(REFERENCE, (ref, hex: string | undefined, dec: string | undefined, name: string | undefined) => {
    if (name !== undefined) return INVISIBLE_NAMES.has(name) ? "" : ref;
    const code = Number.parseInt(hex ?? dec ?? "", hex === undefined ? 10 : 16);
    // cmark shows U+FFFD for 0, surrogates and beyond U+10FFFF: visible.
    if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return ref;
    return INVISIBLE_ONE.test(String.fromCodePoint(code)) ? "" : ref;
  });
}
