import { LineCounter, parseDocument, type Document } from "yaml";
import { configErrorsOf } from "./config-errors.ts";
import { resolveConfig } from "./resolve-config.ts";
import { ConfigSchema } from "./schema.ts";
import type { Config, ConfigError, LoadConfigResult } from "./types.ts";

/** Where naruto reads its config, relative to the repository root. */
export const CONFIG_PATH = ".github/naruto.yml";

/**
 * Reads `.github/naruto.yml`. `null` (no file) and an empty file give every default. Every
 * problem is listed, each with the field's path, what is allowed there and, when known, its line.
 *
 * @example loadConfig("limits:\n  max_parallel: 999\n")
 *   → { ok: false, errors: [{ path: "limits.max_parallel", message: "must be at most 256", line: 2 }] }
 */
export function loadConfig(text: string | null): LoadConfigResult {
  let value: unknown = {};
  let doc: Document | null = null;
  const lines = new LineCounter();
  if (text !== null) {
    doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true });
    if (doc.errors.length > 0) {
      return {
        ok: false,
        errors: doc.errors.map((e) => ({
          path: "(root)",
          // The first line without yaml's own " at line N, column M:" (the line is a field here).
          message: `not valid YAML: ${e.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "")}`,
          ...(e.linePos?.[0] ? { line: e.linePos[0].line } : {}),
        })),
      };
    }
    value = doc.toJS({ maxAliasCount: 100 }) ?? {};
  }

  const parsed = ConfigSchema.safeParse(value, { reportInput: true });
  const result = parsed.success ? resolveConfig(parsed.data) : { ok: false as const, errors: configErrorsOf(parsed.error.issues, ConfigSchema) };
  if (result.ok || doc === null) return result;
  const located = result.errors.map((e) => withLine(e, doc, lines));
  // Stable sort: errors read top to bottom like the file; those without a line last.
  return { ok: false, errors: located.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity)) };
}

/** The configuration of a repository without `.github/naruto.yml`. */
export function defaultConfig(): Config {
  const result = loadConfig(null);
  if (!result.ok) throw new Error("naruto bug: the default config does not validate");
  return result.config;
}

/** One error per line: `.github/naruto.yml:7: limits.max_parallel: must be at most 256`. */
export function formatConfigErrors(errors: readonly ConfigError[], file: string = CONFIG_PATH): string {
  return errors.map((e) => `${file}${e.line === undefined ? "" : `:${e.line}`}: ${e.path}: ${e.message}`).join("\n");
}

// The deepest node of the path that exists in the file: a missing field is reported where its parent is.
function withLine(error: ConfigError, doc: Document, lines: LineCounter): ConfigError {
  const path = error.path === "(root)" ? [] : splitPath(error.path);
  for (let n = path.length; n > 0; n--) {
    const node = doc.getIn(path.slice(0, n), true);
    if (node !== null && typeof node === "object" && "range" in node && Array.isArray(node.range)) {
      return { ...error, line: lines.linePos(Number(node.range[0])).line };
    }
  }
  return error;
}

function splitPath(path: string): (string | number)[] {
  const keys: (string | number)[] = [];
  for (const m of path.matchAll(/([A-Za-z0-9_-]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g)) {
    if (m[1] !== undefined) keys.push(m[1]);
    else if (m[2] !== undefined) keys.push(Number(m[2]));
    else if (m[3] !== undefined) keys.push(String(JSON.parse(m[3])));
  }
  return keys;
}
