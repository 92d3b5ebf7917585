/**
 * A repository's Actions settings as `naruto doctor` reads them: its secrets (names only: GitHub
 * never answers a value), its variables, the organisation's secrets and variables it may use,
 * and the workflow permissions (`can_approve_pull_request_reviews` is the setting "Allow GitHub
 * Actions to create and approve pull requests", off on a new repository).
 *
 * Reading them is an admin's business on GitHub (the settings pages are admins' only); an
 * installation needs `secrets`, `actions_variables` or `administration` read.
 */
import type { RepoState, World } from "./state.ts";

export interface ActionsSettings {
  /** Secret names, with when each was set. */
  readonly secrets: Map<string, number>;
  readonly variables: Map<string, { value: string; at: number }>;
  defaultWorkflowPermissions: "read" | "write";
  canApprovePullRequestReviews: boolean;
}

export interface OrgActionsSettings {
  readonly secrets: Map<string, number>;
  readonly variables: Map<string, { value: string; at: number }>;
}

const byRepo = new WeakMap<RepoState, ActionsSettings>();
const byWorld = new WeakMap<World, Map<string, OrgActionsSettings>>();

export function actionsSettings(repo: RepoState): ActionsSettings {
  let settings = byRepo.get(repo);
  if (settings === undefined) {
    settings = { secrets: new Map(), variables: new Map(), defaultWorkflowPermissions: "read", canApprovePullRequestReviews: false };
    byRepo.set(repo, settings);
  }
  return settings;
}

/** The organisation's (or user's) secrets and variables, shared here with all of its repositories. */
export function orgActionsSettings(world: World, owner: string): OrgActionsSettings {
  let orgs = byWorld.get(world);
  if (orgs === undefined) byWorld.set(world, (orgs = new Map()));
  let settings = orgs.get(owner.toLowerCase());
  if (settings === undefined) orgs.set(owner.toLowerCase(), (settings = { secrets: new Map(), variables: new Map() }));
  return settings;
}

/** What a test sets: names of secrets (GitHub keeps values write-only), variables, the pull request setting. */
export interface ActionsSettingsInput {
  readonly repo: string;
  readonly secrets?: readonly string[];
  readonly removeSecrets?: readonly string[];
  readonly variables?: Readonly<Record<string, string>>;
  readonly removeVariables?: readonly string[];
  readonly canApprovePullRequestReviews?: boolean;
  /** Secrets and variables of the repository's owner, shared with it. */
  readonly orgSecrets?: readonly string[];
  readonly orgVariables?: Readonly<Record<string, string>>;
}

export function setActionsSettings(world: World, repo: RepoState, input: ActionsSettingsInput): void {
  const settings = actionsSettings(repo);
  const now = world.now();
  for (const name of input.secrets ?? []) settings.secrets.set(name.toUpperCase(), now);
  for (const name of input.removeSecrets ?? []) settings.secrets.delete(name.toUpperCase());
  for (const [name, value] of Object.entries(input.variables ?? {})) settings.variables.set(name.toUpperCase(), { value, at: now });
  for (const name of input.removeVariables ?? []) settings.variables.delete(name.toUpperCase());
  if (input.canApprovePullRequestReviews !== undefined) settings.canApprovePullRequestReviews = input.canApprovePullRequestReviews;
  const org = orgActionsSettings(world, repo.owner.login);
  for (const name of input.orgSecrets ?? []) org.secrets.set(name.toUpperCase(), now);
  for (const [name, value] of Object.entries(input.orgVariables ?? {})) org.variables.set(name.toUpperCase(), { value, at: now });
}
