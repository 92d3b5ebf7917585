/**
 * The redactor (docs/architecture.md, "What leaves"; STYLE.md 13): one pure function from text to text
 * that every way out of naruto goes through — comments, check runs, reports, result JSON, job
 * summaries, logs, the terminal, the mission document in refs. It knows the exact values of the
 * secrets it is given (secrets.ts says which), in the forms they travel in, and the known formats
 * of credentials it was not given (formats.ts).
 */
import { redactFormats } from "./formats.ts";
import { MIN_SECRET_LENGTH, REDACTED } from "./redacted.ts";
import { pendingStart, redactSplit, withoutSeparators } from "./split.ts";

export interface Redactor {
  /**
   * `text` with every secret it knows, and every known format, replaced by `[redacted]`. A known
   * value is found also when whitespace cuts it in pieces (a line break, spaces, `\n` in JSON
   * between its chunks): the pieces and what is between them go.
   */
  redact(text: string): string;
  /**
   * Where in `text` a known value may begin that the text that follows could complete: the
   * start of the longest tail that, whitespace aside, begins a value's form; `text.length` when
   * none does. A stream holds that tail back (stream.ts).
   */
  pending(text: string): number;
  /** The exact values it redacts (those at least {@link MIN_SECRET_LENGTH} long). */
  readonly values: readonly string[];
}

/**
 * @param input.secrets exact values (unset and short ones are ignored); none: the formats only.
 * @example createRedactor({ secrets: secretValues({ env, passed }) }).redact(output)
 */
export function createRedactor(input: { readonly secrets?: Iterable<string | null | undefined> } = {}): Redactor {
  const values = [...new Set([...(input.secrets ?? [])].flatMap((v) => (typeof v === "string" ? secretParts(v) : [])))];
  const forms = [...new Set(values.flatMap(formsOf))].sort((a, b) => b.length - a.length);
  // One pass over the text for every exact form, longest first: a secret that holds another
  // (a token and its prefix) goes whole.
  const exact = forms.length === 0 ? null : new RegExp(forms.map(escapeRegExp).join("|"), "g");
  // The same forms without whitespace, found in the text without whitespace (see split.ts).
  const joined = [...new Set(forms.map(withoutSeparators).filter((f) => f.length >= MIN_SECRET_LENGTH))].sort((a, b) => b.length - a.length);
  const split = joined.length === 0 ? null : new RegExp(joined.map(escapeRegExp).join("|"), "g");
  return {
    values,
    redact(text) {
      if (text === "") return text;
      if (exact === null || split === null) return redactFormats(text);
      return redactFormats(redactSplit(text.replace(exact, REDACTED), split));
    },
    pending(text) {
      return split === null ? text.length : pendingStart(text, joined);
    },
  };
}

/** Redacts the known formats only: for pure code that holds no secret values (the renderers). */
export const formatsOnly: Redactor = createRedactor();

/** A copy of a JSON-like value with every string in it redacted (keys are kept). */
export function redactJson<T>(value: T, redactor: Redactor): T {
  return walk(value, redactor) as T;
}

function walk(value: unknown, redactor: Redactor): unknown {
  if (typeof value === "string") return redactor.redact(value);
  if (Array.isArray(value)) return value.map((v) => walk(v, redactor));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, redactor)]));
  }
  return value;
}

/**
 * The value, and each of its lines when it has several (a PEM key printed or streamed line by
 * line), when long enough to be a secret.
 */
function secretParts(value: string): string[] {
  const parts = [
    value,
    value.trim(),
    ...value
      .split(/\r\n|\r|\n/)
      .map((l) => l.trim())
      .filter((l) => !l.startsWith("-----")),
  ];
  return [...new Set(parts)].filter((p) => p.length >= MIN_SECRET_LENGTH);
}

/**
 * The forms a value travels in: as is; escaped in JSON, in markdown (the renderers' escaping)
 * and in a URL; base64 (standard and URL-safe) at each of the three alignments it can have
 * inside a longer encoded text (the characters that depend on the value alone); hex.
 */
function formsOf(value: string): string[] {
  const bytes = Buffer.from(value, "utf8");
  const forms = [
    value,
    JSON.stringify(value).slice(1, -1),
    markdownEscaped(value),
    encodeURIComponent(value),
    bytes.toString("hex"),
    bytes.toString("hex").toUpperCase(),
  ];
  const whole = bytes.toString("base64");
  forms.push(whole, whole.replace(/=+$/, ""));
  for (let offset = 0; offset < 3; offset++) {
    const aligned = bytes.subarray(offset, offset + Math.floor((bytes.length - offset) / 3) * 3);
    const b64 = aligned.toString("base64");
    forms.push(b64, b64.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return forms.filter((f) => f.length >= MIN_SECRET_LENGTH);
}

// The same escaping as src/report/escape.ts (which cannot be imported here: it redacts through this module).
function markdownEscaped(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/[\\`*_[\]|~]/g, "\\$&")
    .replace(/([@#])/g, "$1&#8203;")
    .replace(/:\/\//g, ":&#8203;//");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}
