/**
 * GitHub's cursor connections: `first`/`after` forwards, `last`/`before` backwards, one of
 * `first` and `last` required, at most 100 nodes a page; cursors are opaque strings. `skip`
 * (where GitHub offers it) leaves out the first n nodes after the cursor.
 */

/** A field error as GitHub reports it: `{ type, message, path, locations }` in `errors`, the field null. */
export class FieldError extends Error {
  override readonly name = "FieldError";
  readonly type: string;
  constructor(type: string, message: string) {
    super(message);
    this.type = type;
  }
}

export interface ConnectionArgs {
  readonly first?: number | null;
  readonly after?: string | null;
  readonly last?: number | null;
  readonly before?: string | null;
  readonly skip?: number | null;
}

export interface Connection<T> {
  readonly edges: { cursor: string; node: T }[];
  readonly nodes: T[];
  readonly pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  readonly totalCount: number;
}

const MAX_PAGE = 100;

function cursorOf(index: number): string {
  return Buffer.from(`cursor:v2:${index}`).toString("base64");
}

function indexOf(cursor: string): number {
  const match = /^cursor:v2:(\d+)$/.exec(Buffer.from(cursor, "base64").toString("utf8"));
  if (match === null) throw new FieldError("INVALID_CURSOR_ARGUMENTS", `\`${cursor}\` does not appear to be a valid cursor.`);
  return Number(match[1]);
}

export function connection<T>(items: readonly T[], args: ConnectionArgs, name: string): Connection<T> {
  const { first, last } = args;
  if ((first === undefined || first === null) && (last === undefined || last === null)) {
    throw new FieldError("MISSING_PAGINATION_BOUNDARIES", `You must provide a \`first\` or \`last\` value to properly paginate the \`${name}\` connection.`);
  }
  for (const [arg, value] of [
    ["first", first],
    ["last", last],
  ] as const) {
    if (value === undefined || value === null) continue;
    if (value < 0) throw new FieldError("INVALID_PAGINATION", `\`${arg}\` on the \`${name}\` connection cannot be less than zero.`);
    if (value > MAX_PAGE) {
      throw new FieldError(
        "EXCESSIVE_PAGINATION",
        `Requesting ${value} records on the \`${name}\` connection exceeds the \`${arg}\` limit of ${MAX_PAGE} records.`,
      );
    }
  }
  if (args.skip !== undefined && args.skip !== null && args.skip < 0)
    throw new FieldError("INVALID_PAGINATION", `\`skip\` on the \`${name}\` connection cannot be less than zero.`);
  let start = (args.after ? indexOf(args.after) + 1 : 0) + (args.skip ?? 0);
  let end = args.before ? indexOf(args.before) : items.length;
  start = Math.min(start, items.length);
  end = Math.max(Math.min(end, items.length), start);
  if (first !== undefined && first !== null) end = Math.min(end, start + first);
  if (last !== undefined && last !== null) start = Math.max(start, end - last);
  const edges = items.slice(start, end).map((node, i) => ({ cursor: cursorOf(start + i), node }));
  return {
    edges,
    nodes: edges.map((e) => e.node),
    pageInfo: {
      hasNextPage: end < items.length,
      hasPreviousPage: start > 0,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    totalCount: items.length,
  };
}
