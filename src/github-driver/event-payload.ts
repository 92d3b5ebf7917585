/**
 * The event that started a job or reached the App (a webhook payload, or `GITHUB_EVENT_PATH`), read with zod: only the fields naruto
 * uses, each checked. GitHub wrote the payload; the texts in it (comment bodies) are still
 * untrusted and are only ever handled as data.
 */
import { z } from "zod";
import type { CommentEvent } from "./comment-types.ts";

/** The dispatch that started a run (`workflow_dispatch` inputs), as the queue and publish jobs read it. */
export interface DispatchInput {
  readonly phase: "plan" | "work" | "review" | "integrate" | "refresh" | null;
  readonly items: readonly { readonly item: string; readonly attempt: number }[];
  /** `integrate` only: the work run whose finished legs' artifacts this run integrates. */
  readonly run?: number;
}

/** An account as GitHub writes it: the login may change (renames), the numeric id never does. */
const account = z.object({ login: z.string(), id: z.number().int(), type: z.string() });

const commentPayload = z.object({
  action: z.string(),
  repository: z.object({ full_name: z.string(), default_branch: z.string() }),
  issue: z.object({
    number: z.number().int(),
    body: z.string().nullable().optional(),
    pull_request: z.unknown().optional(),
    // Null for a deleted account ("ghost"); such an issue body is never anyone's instruction.
    user: account.nullable().optional(),
  }),
  comment: z.object({ id: z.number().int(), body: z.string(), user: account }),
});

/** The comment of an `issue_comment` `created` event; null for anything else. */
export function commentEventOf(eventName: string, payload: unknown): CommentEvent | null {
  if (eventName !== "issue_comment") return null;
  const parsed = commentPayload.safeParse(payload);
  if (!parsed.success || parsed.data.action !== "created") return null;
  const p = parsed.data;
  return {
    repo: p.repository.full_name,
    defaultBranch: p.repository.default_branch,
    issue: {
      number: p.issue.number,
      pullRequest: p.issue.pull_request !== undefined && p.issue.pull_request !== null,
      body: p.issue.body ?? null,
      user: p.issue.user ?? null,
    },
    comment: { id: p.comment.id, body: p.comment.body, user: p.comment.user },
  };
}

const dispatchPayload = z.object({
  inputs: z
    .object({ phase: z.enum(["plan", "work", "review", "integrate", "refresh"]).optional(), items: z.string().optional(), run: z.string().optional() })
    .optional(),
});

const itemsSchema = z.array(z.object({ item: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,62}$/), attempt: z.number().int().min(1) })).max(256);

/** The `workflow_dispatch` inputs of this run: which phase, which attempts. */
export function dispatchInputOf(eventName: string, payload: unknown): DispatchInput {
  const none: DispatchInput = { phase: null, items: [] };
  if (eventName !== "workflow_dispatch") return none;
  const parsed = dispatchPayload.safeParse(payload);
  if (!parsed.success) return none;
  const inputs = parsed.data.inputs ?? {};
  let items: DispatchInput["items"] = [];
  try {
    const list = itemsSchema.safeParse(JSON.parse(inputs.items ?? "[]"));
    if (list.success) items = list.data;
  } catch {
    items = [];
  }
  if (inputs.phase === "integrate") {
    // The run's id, as the App dispatched it; anything else integrates nothing.
    const run = /^[1-9][0-9]{0,15}$/.test(inputs.run ?? "") ? Number(inputs.run) : null;
    return run === null ? none : { phase: "integrate", items: [], run };
  }
  return { phase: inputs.phase ?? null, items };
}
