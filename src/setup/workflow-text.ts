/**
 * The workflow `naruto init` writes and `naruto upgrade` brings up to date, from this naruto's
 * templates/naruto.yml: pure functions from texts to texts.
 *
 * The stamp line records the version and how the file was made (`naruto-template 0.1.0 (naruto
 * init --agent codex --app)`), so that an upgrade knows what the user chose without asking, and
 * doctor can tell an old file from this version's.
 */
import { AGENT_CHOICES, agentBlocks, type AgentChoice } from "./agent-setup.ts";
import { hasWithoutAppParts, parseMarkedTemplate, renderMarkedTemplate, yoursBlocks, type MarkedTemplate } from "./marked-template.ts";

export const WORKFLOW_PATH = ".github/workflows/naruto.yml";
export const CONFIG_FILE_PATH = ".github/naruto.yml";

export interface WorkflowChoice {
  readonly agent: AgentChoice;
  readonly app: boolean;
}

export function madeBy(choice: WorkflowChoice): string {
  return `naruto init --agent ${choice.agent}${choice.app ? " --app" : ""}`;
}

/** The choice a stamp records; null when the stamp says nothing naruto wrote. */
export function choiceOf(madeByText: string | null): WorkflowChoice | null {
  const match = /^naruto init --agent ([a-z]+)( --app)?$/.exec(madeByText ?? "");
  const agent = match?.[1];
  if (agent === undefined || !(AGENT_CHOICES as readonly string[]).includes(agent)) return null;
  return { agent: agent as AgentChoice, app: match?.[2] !== undefined };
}

/** The workflow for a choice: this version's template with the choice's install step and secret. */
export function renderWorkflow({ template, version, choice }: { template: string; version: string; choice: WorkflowChoice }): string {
  const parsed = parseMarkedTemplate(template, "templates/naruto.yml");
  return renderMarkedTemplate(parsed, { yours: agentBlocks(choice.agent), app: choice.app, stamp: `${version} (${madeBy(choice)})` });
}

export type UpgradeResult =
  | {
      readonly kind: "upgraded";
      readonly text: string;
      readonly from: string | null;
      readonly choice: WorkflowChoice;
      /** `yours` blocks kept as the user left them. */
      readonly kept: readonly string[];
      /** Blocks this version's template adds (the choice's text, or the template's). */
      readonly added: readonly string[];
      /** Blocks the user's file had that this version's template no longer has, with their text. */
      readonly dropped: ReadonlyArray<{ readonly name: string; readonly body: string }>;
    }
  /** The file has no naruto markers and no stamp: it was copied by hand before `naruto init`; what is the user's in it cannot be told. */
  | { readonly kind: "unmarked" };

/**
 * The user's workflow brought to this version's template: every `yours` block kept, the parts
 * without the App left out when the file had left them out, and the stamp moved on.
 * Throws MarkedTemplateError when the file's markers do not pair up.
 */
export function upgradeWorkflow({ current, template, version }: { current: string; template: string; version: string }): UpgradeResult {
  const mine = parseMarkedTemplate(current, WORKFLOW_PATH);
  const blocks = yoursBlocks(mine);
  if (mine.version === null && Object.keys(blocks).length === 0) return { kind: "unmarked" };
  const recorded = choiceOf(mine.madeBy);
  const choice: WorkflowChoice = recorded ?? { agent: "claude", app: !hasWithoutAppParts(mine) && mine.version !== null };
  const next: MarkedTemplate = parseMarkedTemplate(template, "templates/naruto.yml");
  const names = next.segments.flatMap((s) => (s.kind === "yours" ? [s.name] : []));
  const defaults = agentBlocks(choice.agent);
  const yours: Record<string, string> = {};
  const kept: string[] = [];
  const added: string[] = [];
  for (const name of names) {
    const body = blocks[name];
    if (body !== undefined) {
      yours[name] = body;
      kept.push(name);
    } else {
      // A file stamped without a choice (copied from the template) gets the template's own text.
      if (recorded !== null && defaults[name] !== undefined) yours[name] = defaults[name];
      added.push(name);
    }
  }
  const dropped = Object.entries(blocks)
    .filter(([name]) => !names.includes(name))
    .map(([name, body]) => ({ name, body }));
  const stamp = recorded === null ? version : `${version} (${madeBy(choice)})`;
  return { kind: "upgraded", text: renderMarkedTemplate(next, { yours, app: choice.app, stamp }), from: mine.version, choice, kept, added, dropped };
}
