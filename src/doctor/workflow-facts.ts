/**
 * What a repository's naruto workflow asks of its settings, read from its text: the secrets it
 * passes (and whether an expression falls back when one is missing), the variables it reads,
 * which variables each job's agent step passes to the agent, and whether the App takes the
 * comments (no `command` job). Pure: doctor compares these with what GitHub says.
 */
import { parse } from "yaml";

export interface SecretUse {
  readonly name: string;
  /** `${{ secrets.X || … }}`: the workflow goes on without it. */
  readonly optional: boolean;
}

export interface WorkflowFacts {
  readonly secrets: readonly SecretUse[];
  readonly variables: readonly string[];
  /** Variable names each agent step (`node "$NARUTO_CLI"` in plan, work, review, queue) sets, by job. */
  readonly agentEnv: Readonly<Record<string, readonly string[]>>;
  /** The `command` job that answers comments without the App is there. */
  readonly commandJob: boolean;
}

const EXPRESSION = /\$\{\{([\s\S]*?)\}\}/g;
const SECRET = /\bsecrets\.([A-Za-z_][A-Za-z0-9_]*)/g;
const VARIABLE = /\bvars\.([A-Za-z_][A-Za-z0-9_]*)/g;

type Step = { run?: unknown; env?: unknown };
type Job = { steps?: unknown };

export function workflowFacts(text: string): WorkflowFacts {
  const secrets = new Map<string, boolean>();
  const variables = new Set<string>();
  for (const [, body = ""] of text.matchAll(EXPRESSION)) {
    const code = body.replace(/'[^']*'/g, "''");
    for (const [, name = ""] of code.matchAll(SECRET)) {
      if (name === "GITHUB_TOKEN") continue;
      const optional = new RegExp(`secrets\\.${name}\\s*\\|\\|`).test(code);
      secrets.set(name, (secrets.get(name) ?? true) && optional);
    }
    for (const [, name = ""] of code.matchAll(VARIABLE)) variables.add(name);
  }
  // `if:` conditions hold expressions without ${{ }}.
  for (const [, name = ""] of text.replace(/#.*$/gm, "").matchAll(VARIABLE)) variables.add(name);
  const document = parse(text) as { jobs?: Record<string, Job> } | null;
  const agentEnv: Record<string, string[]> = {};
  for (const [id, job] of Object.entries(document?.jobs ?? {})) {
    for (const step of Array.isArray(job?.steps) ? (job.steps as Step[]) : []) {
      if (typeof step?.run === "string" && step.run.includes("$NARUTO_CLI") && typeof step.env === "object" && step.env !== null) {
        agentEnv[id] = Object.keys(step.env).filter((name) => !name.startsWith("NARUTO_"));
      }
    }
  }
  return {
    secrets: [...secrets].map(([name, optional]) => ({ name, optional })).sort((a, b) => a.name.localeCompare(b.name)),
    variables: [...variables].sort(),
    agentEnv,
    commandJob: document?.jobs?.["command"] !== undefined,
  };
}
