/**
 * The workflow template's marked parts (templates/naruto.yml):
 *
 *   # >>> naruto yours: NAME          what the user may change; `naruto upgrade` keeps it
 *   # <<< naruto yours: NAME
 *   # >>> naruto without-app: NAME    what `naruto init --app` leaves out
 *   # <<< naruto without-app: NAME
 *   # naruto-template VERSION [(how it was made)]
 *
 * The file is read as lines, never as YAML: comments, order and the user's spacing must come
 * back byte for byte, and a YAML parser keeps none of them. Markers are comments, so the file
 * stays a workflow GitHub runs whatever is done with them.
 */

export type Segment =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "yours"; readonly name: string; readonly open: string; readonly body: string; readonly close: string }
  | { readonly kind: "without-app"; readonly name: string; readonly open: string; readonly body: string; readonly close: string };

export interface MarkedTemplate {
  readonly segments: readonly Segment[];
  /** The `naruto-template` line's version, or null when the file has none (copied before there was one, or not naruto's). */
  readonly version: string | null;
  /** What the stamp says made it, e.g. `naruto init --agent codex --app`; null when it says nothing. */
  readonly madeBy: string | null;
}

/** A marker that does not pair up: the file cannot be taken apart safely. */
export class MarkedTemplateError extends Error {
  override readonly name = "MarkedTemplateError";
  constructor(
    readonly path: string,
    readonly line: number,
    problem: string,
  ) {
    super(`${path}:${line}: ${problem}`);
  }
}

const MARKER = /^[ \t]*# (>>>|<<<) naruto (yours|without-app): ([a-z0-9_-]+)[ \t]*$/;
/** What a marker looks like to a reader: a line like it that MARKER does not take is a mistake, not text. */
const LOOKS_LIKE_MARKER = /^[ \t]*#[ \t]*(>>>|<<<)[ \t]*naruto\b/;
export const STAMP = /^# naruto-template (\S+)(?: \((.*)\))?$/;

/** Splits a workflow file into its text and its marked blocks; throws MarkedTemplateError on markers that do not pair up. */
export function parseMarkedTemplate(text: string, path: string): MarkedTemplate {
  const lines = text.split(/(?<=\n)/);
  const segments: Segment[] = [];
  const seen = new Set<string>();
  let plain = "";
  let open: { kind: "yours" | "without-app"; name: string; line: string; at: number; body: string } | null = null;
  let version: string | null = null;
  let madeBy: string | null = null;
  lines.forEach((line, index) => {
    const stamp = STAMP.exec(line.trimEnd());
    if (stamp !== null && version === null && open === null) {
      version = stamp[1] ?? null;
      madeBy = stamp[2] ?? null;
    }
    const marker = MARKER.exec(line.replace(/\r?\n$/, ""));
    if (marker === null && LOOKS_LIKE_MARKER.test(line)) {
      throw new MarkedTemplateError(
        path,
        index + 1,
        `"${line.trim()}" is not a marker naruto reads: write "# >>> naruto yours: NAME" or "# <<< naruto yours: NAME" (NAME in a-z, 0-9, _ and -)`,
      );
    }
    if (marker === null) {
      if (open !== null) open.body += line;
      else plain += line;
      return;
    }
    const [, arrow, kind, name] = marker as unknown as [string, ">>>" | "<<<", "yours" | "without-app", string];
    if (arrow === ">>>") {
      if (open !== null)
        throw new MarkedTemplateError(path, index + 1, `"${kind}: ${name}" opens inside "${open.kind}: ${open.name}" (line ${open.at}), which is not closed`);
      const key = `${kind}:${name}`;
      if (seen.has(key)) throw new MarkedTemplateError(path, index + 1, `"${kind}: ${name}" is marked twice`);
      seen.add(key);
      if (plain !== "") segments.push({ kind: "text", text: plain });
      plain = "";
      open = { kind, name, line, at: index + 1, body: "" };
      return;
    }
    if (open === null || open.kind !== kind || open.name !== name) {
      throw new MarkedTemplateError(
        path,
        index + 1,
        open === null
          ? `"${kind}: ${name}" closes a block that was not opened`
          : `"${kind}: ${name}" closes "${open.kind}: ${open.name}" (opened on line ${open.at})`,
      );
    }
    segments.push({ kind, name, open: open.line, body: open.body, close: line });
    open = null;
  });
  if (open !== null) {
    const o: { kind: string; name: string; at: number } = open;
    throw new MarkedTemplateError(path, o.at, `"${o.kind}: ${o.name}" is never closed (its "# <<< naruto ${o.kind}: ${o.name}" line is missing)`);
  }
  if (plain !== "") segments.push({ kind: "text", text: plain });
  return { segments, version, madeBy };
}

export interface RenderInput {
  /** Bodies of `yours` blocks by name (each ending in a newline, or empty); blocks not named keep the template's. */
  readonly yours: Readonly<Record<string, string>>;
  /** Leave out the `without-app` parts. */
  readonly app: boolean;
  /** The stamp line's new text, after `# naruto-template `. */
  readonly stamp: string;
}

/** The template with the given blocks and stamp: what `naruto init` and `naruto upgrade` write. */
export function renderMarkedTemplate(template: MarkedTemplate, input: RenderInput): string {
  let out = "";
  for (const segment of template.segments) {
    if (segment.kind === "text") out += segment.text;
    else if (segment.kind === "yours") out += segment.open + (input.yours[segment.name] ?? segment.body) + segment.close;
    else if (!input.app) out += segment.open + segment.body + segment.close;
  }
  // Leaving a part out leaves the blank line that separated it from the next job: one is enough.
  if (input.app) out = out.replace(/\n\n\n+/g, "\n\n");
  return out.replace(/^# naruto-template .*$/m, `# naruto-template ${input.stamp}`);
}

/** The bodies of the file's `yours` blocks, by name. */
export function yoursBlocks(template: MarkedTemplate): Record<string, string> {
  const blocks: Record<string, string> = {};
  for (const segment of template.segments) if (segment.kind === "yours") blocks[segment.name] = segment.body;
  return blocks;
}

/** Whether the file still holds the parts `naruto init --app` leaves out. */
export function hasWithoutAppParts(template: MarkedTemplate): boolean {
  return template.segments.some((s) => s.kind === "without-app");
}
