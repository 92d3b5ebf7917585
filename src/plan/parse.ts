/**
 * Plan text → data: YAML, JSON, or the first fenced code block with info string `naruto` in
 * markdown (an issue body or a comment). Never throws: bad text is a {@link PlanError} with the
 * line and column, counted in the text the user wrote (also inside a fenced block).
 */
import { LineCounter, parseDocument } from "yaml";
import type { PlanError } from "./types.ts";

export type PlanFormat = "yaml" | "json" | "markdown";

export type ParseResult = { ok: true; raw: unknown; format: PlanFormat } | { ok: false; errors: PlanError[] };

/** A fenced `naruto` block: its content, and the line (1-based) its first content line is on. */
export interface FencedPlan {
  readonly body: string;
  readonly line: number;
}

// CommonMark fences: up to 3 spaces of indent, 3 or more backticks or tildes.
const OPEN = /^( {0,3})(`{3,}|~{3,})(.*)$/;
const CLOSE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;
const ANY_FENCE = /^ {0,3}(```|~~~)/m;
const COMMENT_START = /^ {0,3}<!--/;

/**
 * Finds the first fenced block whose info string starts with `naruto`. Other fenced blocks are
 * skipped whole, so an example inside a ```` ```markdown ```` block is not taken for the plan;
 * quoted blocks (`> ```naruto`) are not plans either (a reply quoting an older plan). A block
 * inside an HTML comment is invisible on GitHub, so it is never the plan: a maintainer must be
 * able to see the plan they approve. An unclosed block runs to the end of the text, as in
 * CommonMark.
 */
export function findFencedPlan(markdown: string): FencedPlan | null {
  // Every fence has three backticks or tildes in a row: without them, a JSON or YAML plan of
  // a megabyte need not be cut into lines first.
  if (!markdown.includes("```") && !markdown.includes("~~~")) return null;
  const lines = markdown.split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; i++) {
    const first = lines[i] ?? "";
    if (COMMENT_START.test(first)) {
      // A CommonMark HTML block of kind 2: from `<!--` to the first line holding `-->`.
      let end = first.indexOf("-->", first.indexOf("<!--") + 4);
      while (end < 0 && i + 1 < lines.length) end = (lines[++i] ?? "").indexOf("-->");
      continue;
    }
    const open = OPEN.exec(lines[i] ?? "");
    if (!open) continue;
    const [, indent = "", fence = "", rest = ""] = open;
    if (fence[0] === "`" && rest.includes("`")) continue; // not a fence: inline code
    const isPlan = (rest.trim().split(/\s+/)[0] ?? "").toLowerCase() === "naruto";
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j] ?? "";
      const close = CLOSE.exec(line);
      if (close && close[1]?.[0] === fence[0] && (close[1]?.length ?? 0) >= fence.length) break;
      body.push(stripIndent(line, indent.length));
    }
    if (isPlan) return { body: body.join("\n"), line: i + 2 };
    i = j;
  }
  return null;
}

function stripIndent(line: string, width: number): string {
  let k = 0;
  while (k < width && line[k] === " ") k++;
  return line.slice(k);
}

/**
 * Reads a plan from text, deciding the format: markdown when it holds a ```` ```naruto ````
 * block, JSON when it is valid JSON, YAML otherwise.
 *
 * @example parsePlanText("version: 1\nitems: []") → { ok: true, raw: { version: 1, items: [] }, format: "yaml" }
 */
export function parsePlanText(text: string): ParseResult {
  const fenced = findFencedPlan(text);
  if (fenced !== null) {
    const inner = parseData(fenced.body, fenced.line - 1);
    return inner.ok ? { ok: true, raw: inner.raw, format: "markdown" } : inner;
  }
  const result = parseData(text, 0);
  if (!result.ok && ANY_FENCE.test(text)) {
    // Markdown with code blocks but no plan among them: YAML errors about its prose would mislead.
    return syntaxError("no plan found: none of the fenced code blocks starts with ```naruto");
  }
  if (result.ok && !isPlanShaped(result.raw)) {
    return syntaxError(
      "no plan found: write the plan as YAML or JSON (a mapping with version and items), " + "or put it in a fenced code block that starts with ```naruto",
    );
  }
  return result;
}

/** YAML or JSON; `lineOffset` is added to reported lines (the block's place in the markdown). */
function parseData(text: string, lineOffset: number): ParseResult {
  if (text.trim() === "") return syntaxError("the plan is empty");
  const start = text.trimStart()[0];
  if (start === "{" || start === "[") {
    // JSON.parse is many times faster than a YAML parser on a 10,000-item plan. When it fails,
    // the YAML parser (YAML 1.2 is a superset of JSON) reads the text again and either accepts
    // it (`{version: 1, …}` is YAML) or says on which line it is broken.
    try {
      return { ok: true, raw: JSON.parse(text) as unknown, format: "json" };
    } catch {
      // fall through to YAML
    }
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true, lineCounter });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      errors: doc.errors.map((error) => {
        const { line, col } = lineCounter.linePos(error.pos[0]);
        return syntaxErrorOf(`line ${line + lineOffset}, column ${col}: ${error.message}`);
      }),
    };
  }
  try {
    // toJS expands aliases and throws past its alias budget ("billion laughs").
    return { ok: true, raw: doc.toJS({ maxAliasCount: 100 }) as unknown, format: "yaml" };
  } catch (error) {
    return syntaxError(`the YAML cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function isPlanShaped(raw: unknown): boolean {
  return typeof raw === "object" && raw !== null;
}

function syntaxErrorOf(message: string): PlanError {
  return { item: null, index: null, field: "", message };
}

function syntaxError(message: string): ParseResult {
  return { ok: false, errors: [syntaxErrorOf(message)] };
}
