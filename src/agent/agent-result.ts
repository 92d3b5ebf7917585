import { z } from "zod";

/**
 * Failures an agent may say a retry would repeat: a program it needs is missing, its credentials
 * were refused, its own command line is not one its CLI takes.
 */
export const AGENT_FAILURES = ["not_found", "authentication", "config"] as const;
export type AgentFailureKind = (typeof AGENT_FAILURES)[number];

/** What an agent may report in `$NARUTO_RESULT_FILE` (docs/architecture.md); every field optional. */
export interface AgentResult {
  readonly summary: string | null;
  readonly cost_usd: number | null;
  readonly tokens_in: number | null;
  readonly tokens_out: number | null;
  readonly model: string | null;
  /**
   * The agent's word that it failed for a reason a retry would repeat (the presets say it when
   * their CLI refused its credentials); only heeded when the agent also exited non-zero.
   */
  readonly failure: { readonly kind: AgentFailureKind; readonly message: string } | null;
}

/** Longest summary kept: reports show it per item. */
export const SUMMARY_LIMIT = 4000;

// Each field is checked on its own: one bad field costs that field, not the whole result.
const FIELDS = {
  summary: z.string(),
  cost_usd: z.number().nonnegative(),
  tokens_in: z.number().int().nonnegative(),
  tokens_out: z.number().int().nonnegative(),
  model: z.string().min(1).max(200),
  failure: z.object({ kind: z.enum(AGENT_FAILURES), message: z.string().max(2000).default("") }),
} as const;

type Field = keyof typeof FIELDS;

export interface ParsedAgentResult {
  readonly result: AgentResult | null;
  /** What was wrong with the file: shown in the report, never an error of the attempt. */
  readonly notes: readonly string[];
}

/**
 * Reads an agent's result file. The agent's output is untrusted: invalid JSON, a value of the
 * wrong type or a missing file is a note, never an exception. `null` and absent fields are the
 * same (preset parsers write `undefined` fields an agent did not report).
 *
 * @example parseAgentResult('{"summary":"done","cost_usd":-1}')
 *   → { result: { summary: "done", cost_usd: null, … }, notes: ["result field cost_usd ignored: …"] }
 */
export function parseAgentResult(text: string | null): ParsedAgentResult {
  if (text === null) return { result: null, notes: [] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { result: null, notes: [`the result file is not valid JSON (${error instanceof Error ? error.message : String(error)})`] };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { result: null, notes: ["the result file is not a JSON object"] };
  }
  const record = value as Record<string, unknown>;
  const notes: string[] = [];
  const read = <K extends Field>(field: K): z.output<(typeof FIELDS)[K]> | null => {
    const raw = record[field];
    if (raw === undefined || raw === null) return null;
    const parsed = FIELDS[field].safeParse(raw);
    if (parsed.success) return parsed.data as z.output<(typeof FIELDS)[K]>;
    notes.push(`result field ${field} ignored: ${parsed.error.issues[0]?.message ?? "invalid"}`);
    return null;
  };
  const summary = read("summary");
  return {
    result: {
      summary: summary === null ? null : summary.length > SUMMARY_LIMIT ? `${summary.slice(0, SUMMARY_LIMIT)}…` : summary,
      cost_usd: read("cost_usd"),
      tokens_in: read("tokens_in"),
      tokens_out: read("tokens_out"),
      model: read("model"),
      failure: read("failure"),
    },
    notes,
  };
}
