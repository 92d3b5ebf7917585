/**
 * A workflow run's trigger: the event name, the payload the runner writes to
 * `GITHUB_EVENT_PATH`, the ref and commit the run uses, and the `inputs` context.
 */
import { assertWebhookPayload, type DispatchRecord, type PayloadBuilders } from "../fake-github/index.ts";

export interface RunTrigger {
  readonly event: string;
  readonly payload: Readonly<Record<string, unknown>>;
  /** `refs/heads/<branch>`. */
  readonly ref: string;
  readonly sha: string;
  readonly actor: string;
  /** The `inputs` context (typed per the workflow's declaration). */
  readonly inputs: Readonly<Record<string, unknown>>;
  /** The fake's run for a dispatch; null for events the fake records no run for. */
  readonly fakeRunId: number | null;
}

/** Dispatch inputs come as strings; the `inputs` context types booleans and numbers. */
function typedInputs(inputs: Readonly<Record<string, string>>, declared: unknown): Record<string, unknown> {
  const specs = (typeof declared === "object" && declared !== null ? declared : {}) as Record<string, { type?: unknown } | null>;
  return Object.fromEntries(
    Object.entries(inputs).map(([name, value]) => {
      const type = specs[name]?.type;
      if (type === "boolean") return [name, value === "true"];
      if (type === "number") return [name, Number(value)];
      return [name, value];
    }),
  );
}

/**
 * The trigger of a dispatch run. The payload is the fake's `workflow_dispatch` payload (GitHub's
 * recorded one with the fake's repository, sender and installation), checked against GitHub's
 * schema as every event the simulator hands a run is.
 */
export function dispatchTrigger(input: { record: DispatchRecord; on: Readonly<Record<string, unknown>>; payloads: PayloadBuilders }): RunTrigger {
  const { record } = input;
  const trigger = input.on["workflow_dispatch"];
  const declared = typeof trigger === "object" && trigger !== null ? (trigger as Record<string, unknown>)["inputs"] : undefined;
  const payload = input.payloads.workflowDispatch({ dispatch: record });
  assertWebhookPayload({ event: "workflow_dispatch", payload });
  return {
    event: "workflow_dispatch",
    payload,
    ref: `refs/heads/${record.ref}`,
    sha: record.sha,
    actor: record.actor,
    inputs: typedInputs(record.inputs, declared),
    fakeRunId: record.runId,
  };
}

/** The activity types an event runs workflows for when `types:` names none (GitHub's defaults). */
const DEFAULT_TYPES: Readonly<Record<string, readonly string[]>> = {
  pull_request: ["opened", "synchronize", "reopened"],
  pull_request_target: ["opened", "synchronize", "reopened"],
};

/** Whether the workflow runs for `event` (with the payload's `action` among `types:`, or among GitHub's default types). */
export function triggers(on: Readonly<Record<string, unknown>>, event: string, payload: Readonly<Record<string, unknown>>): boolean {
  if (!(event in on)) return false;
  const spec = on[event];
  const types = (typeof spec === "object" && spec !== null ? (spec as Record<string, unknown>)["types"] : undefined) ?? DEFAULT_TYPES[event];
  if (types === undefined) return true;
  const list = Array.isArray(types) ? types.map(String) : [String(types)];
  return typeof payload["action"] === "string" && list.includes(payload["action"]);
}
