/**
 * Where the JSON might be in an agent's output. Agents wrap their answer in prose, in a fenced
 * block, or print it bare; this lists the candidate texts, most likely first, and leaves the
 * decision to the schema that validates them.
 */

/** Most candidates tried: bounds the work on long output full of braces. */
const MAX_CANDIDATES = 500;

/**
 * Candidate JSON texts: the whole text, then fenced blocks (the last one first), then balanced
 * `{…}` objects (the one ending last first, so an outer object comes before the ones inside it).
 *
 * @example jsonCandidates('Done.\n{"verdict":"approve"}') → ['Done.\n{"verdict":"approve"}', '{"verdict":"approve"}']
 */
export function jsonCandidates(text: string): string[] {
  const out = [text.trim(), ...fencedBlocks(text).reverse(), ...balancedObjects(text)];
  return [...new Set(out)].filter((c) => c !== "").slice(0, MAX_CANDIDATES);
}

const FENCE = /(?:^|\n)[ \t]*(`{3,}|~{3,})[ \t]*[^\n]*\n([\s\S]*?)\n[ \t]*\1[ \t]*(?=\n|$)/g;

/** Contents of fenced code blocks, in order; a `json` info string is not required. */
function fencedBlocks(text: string): string[] {
  return [...text.matchAll(FENCE)].map((m) => (m[2] ?? "").trim());
}

/**
 * Every balanced `{…}` span, ending last first. Strings are tracked only inside an object, so a
 * quote in the surrounding prose does not hide a brace.
 */
function balancedObjects(text: string): string[] {
  const spans: { start: number; end: number }[] = [];
  const stack: number[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"' && stack.length > 0) inString = true;
    else if (ch === "{") stack.push(i);
    else if (ch === "}") {
      const start = stack.pop();
      if (start !== undefined) spans.push({ start, end: i + 1 });
    }
  }
  spans.sort((a, b) => b.end - a.end || a.start - b.start);
  return spans.slice(0, MAX_CANDIDATES).map((s) => text.slice(s.start, s.end));
}
