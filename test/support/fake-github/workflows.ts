/**
 * What GitHub reads from a workflow file before it accepts a `workflow_dispatch`: that the file
 * exists on the default branch, that it has the trigger, and which inputs it declares.
 */
import { createHash } from "node:crypto";
import { parse } from "yaml";
import { unprocessable } from "./errors.ts";
import type { RepoGit } from "./git-store.ts";
import type { RepoState } from "./state.ts";

export interface WorkflowInput {
  readonly required: boolean;
  readonly default?: string;
  readonly options?: readonly string[];
}

export interface WorkflowFile {
  readonly id: number;
  readonly path: string;
  readonly name: string;
  /** null when the workflow has no `workflow_dispatch` trigger. */
  readonly dispatchInputs: ReadonlyMap<string, WorkflowInput> | null;
}

/** A stable numeric id per repository and path, as GitHub gives each workflow. */
export function workflowId(repo: RepoState, path: string): number {
  return (createHash("sha1").update(`${repo.id}:${path}`).digest().readUInt32BE(0) % 900_000_000) + 100_000_000;
}

function readTriggers(text: string): { name?: unknown; on?: unknown } {
  try {
    const doc: unknown = parse(text);
    if (typeof doc !== "object" || doc === null) return {};
    const record = doc as Record<string, unknown>;
    // YAML 1.1 readers turn a bare `on` key into `true`; the yaml package (1.2) keeps "on".
    return { name: record["name"], on: record["on"] ?? record["true"] };
  } catch {
    return {};
  }
}

function dispatchInputs(on: unknown): Map<string, WorkflowInput> | null {
  if (on === "workflow_dispatch") return new Map();
  if (Array.isArray(on)) return on.includes("workflow_dispatch") ? new Map() : null;
  if (typeof on !== "object" || on === null || !("workflow_dispatch" in on)) return null;
  const trigger = (on as Record<string, unknown>)["workflow_dispatch"];
  const inputs = typeof trigger === "object" && trigger !== null ? (trigger as Record<string, unknown>)["inputs"] : undefined;
  const map = new Map<string, WorkflowInput>();
  if (typeof inputs !== "object" || inputs === null) return map;
  for (const [name, spec] of Object.entries(inputs)) {
    const s = (typeof spec === "object" && spec !== null ? spec : {}) as Record<string, unknown>;
    map.set(name, {
      required: s["required"] === true,
      ...(s["default"] !== undefined ? { default: String(s["default"]) } : {}),
      ...(s["type"] === "choice" && Array.isArray(s["options"]) ? { options: s["options"].map(String) } : {}),
    });
  }
  return map;
}

/** Reads a workflow at `commit`, by file name (`naruto.yml`) or numeric id; null when absent. */
export async function readWorkflow(git: RepoGit, repo: RepoState, commit: string, workflow: string): Promise<WorkflowFile | null> {
  const folder = await git.entryAt(commit, ".github/workflows");
  const entries = folder?.type === "tree" ? await git.lsTree(folder.sha) : [];
  const entry = entries
    .map((e) => ({ ...e, path: `.github/workflows/${e.path}` }))
    .find((e) => (/^\d+$/.test(workflow) ? workflowId(repo, e.path) === Number(workflow) : e.path === `.github/workflows/${workflow}`));
  if (entry === undefined || entry.type !== "blob" || !/\.ya?ml$/.test(entry.path)) return null;
  const { name, on } = readTriggers((await git.readBlob(entry.sha)).toString("utf8"));
  return { id: workflowId(repo, entry.path), path: entry.path, name: typeof name === "string" ? name : entry.path, dispatchInputs: dispatchInputs(on) };
}

/** GitHub's limits: at most 25 inputs and 65,535 characters of inputs JSON. */
export const MAX_DISPATCH_INPUTS = 25;
export const MAX_DISPATCH_INPUT_CHARS = 65_535;

/** Checks the inputs against the workflow's declaration and fills defaults, as GitHub does. */
export function resolveInputs(workflow: WorkflowFile, given: Readonly<Record<string, unknown>>): Record<string, string> {
  const declared = workflow.dispatchInputs;
  if (declared === null) throw unprocessable("Workflow does not have 'workflow_dispatch' trigger");
  if (Object.keys(given).length > MAX_DISPATCH_INPUTS) {
    throw unprocessable(`you may only define up to ${MAX_DISPATCH_INPUTS} \`inputs\` for a \`workflow_dispatch\` event`);
  }
  if (JSON.stringify(given).length > MAX_DISPATCH_INPUT_CHARS) throw unprocessable("inputs are too large.");
  const unexpected = Object.keys(given).filter((k) => !declared.has(k));
  if (unexpected.length > 0) throw unprocessable(`Unexpected inputs provided: ${JSON.stringify(unexpected)}`);
  const inputs: Record<string, string> = {};
  for (const [name, spec] of declared) {
    const value = given[name] === undefined ? spec.default : String(given[name]);
    if (value === undefined) {
      if (spec.required) throw unprocessable(`Required input '${name}' not provided`);
      continue;
    }
    if (spec.options !== undefined && !spec.options.includes(value)) {
      throw unprocessable(`Provided value '${value}' for input '${name}' not in the list of allowed values`);
    }
    inputs[name] = value;
  }
  return inputs;
}
