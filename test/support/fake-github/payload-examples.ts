/**
 * GitHub's recorded webhook payloads (@octokit/webhooks-examples) as the base of the fake's own:
 * what the fake does not model (reactions, `custom_properties`, an account's many URLs) keeps
 * the value GitHub once sent, and everything the fake does model is laid over it.
 *
 * Several recordings predate fields GitHub's schema now requires (the first `issue_comment`
 * example has no `issue.reactions`), so the base is the first recording of the event and action
 * that passes @octokit/webhooks-schemas, not merely the first one.
 */
import { createRequire } from "node:module";
import { validateWebhook } from "./webhook-schemas.ts";

export type Payload = Record<string, unknown>;

interface Definition {
  readonly name: string;
  readonly examples: readonly Payload[];
}

const DEFINITIONS = createRequire(import.meta.url)("@octokit/webhooks-examples") as readonly Definition[];

const chosen = new Map<string, Payload>();

/**
 * A deep copy of the first recorded example of `event` (with `action`, for events that have
 * actions) that conforms to GitHub's schema; the first recorded one when none does.
 *
 * @example example("issue_comment", "created"); example("workflow_dispatch", null)
 */
export function example(event: string, action: string | null): Payload {
  const key = `${event}.${action ?? ""}`;
  let found = chosen.get(key);
  if (found === undefined) {
    const candidates = (DEFINITIONS.find((d) => d.name === event)?.examples ?? []).filter((e) => (action === null ? !("action" in e) : e["action"] === action));
    found = candidates.find((e) => validateWebhook({ event, payload: e }).length === 0) ?? candidates[0];
    if (found === undefined) throw new Error(`@octokit/webhooks-examples has no ${event}${action === null ? "" : `.${action}`} example`);
    chosen.set(key, found);
  }
  return structuredClone(found);
}

export function isPlainObject(value: unknown): value is Payload {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * `ours` laid over `base`, object by object: a field we set wins (arrays and nulls included), a
 * field only the recording has stays, and a field we leave `undefined` is not modelled (the
 * recording's stays).
 *
 * @example overlay({ user: { login: "Codertocat", followers_url: "…" } }, { user: { login: "octo" } })
 *   // → { user: { login: "octo", followers_url: "…" } }
 */
export function overlay(base: unknown, ours: Payload): Payload {
  return lay(base, ours, "all");
}

/**
 * {@link overlay}, but at every depth only for the fields the recording has: the fake's REST
 * shapes carry fields GitHub's webhooks do not (a REST repository's `network_count`, an
 * account's `user_view_type`), and a webhook object has the fields GitHub records for it. Where
 * the recording has no object to follow (null, or absent), ours is taken whole.
 */
export function overlayKnown(base: unknown, ours: Payload): Payload {
  return lay(base, ours, "known");
}

function lay(base: unknown, ours: Payload, keys: "all" | "known"): Payload {
  if (!isPlainObject(base)) return ours;
  const out: Payload = { ...base };
  for (const [key, value] of Object.entries(ours)) {
    if (value === undefined || (keys === "known" && !(key in base))) continue;
    const under = out[key];
    out[key] = isPlainObject(value) && isPlainObject(under) ? lay(under, value, keys) : value;
  }
  return out;
}
