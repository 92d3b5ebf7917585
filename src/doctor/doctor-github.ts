/**
 * What `naruto doctor` reads from GitHub, as a small port with an Octokit adapter: the
 * repository, files on its default branch, the names of its Actions secrets (GitHub never gives
 * a value), its variables, the workflow permissions, and, with the App's own credentials, the
 * App's installation. Every read answers a value or why it could not be read: doctor reports an
 * unreadable setting instead of guessing it.
 */
import { createSign } from "node:crypto";
import { Octokit } from "@octokit/rest";
import type { GitHubRepository } from "../setup/index.ts";

export type Read<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly status: number; readonly message: string };

export interface Installation {
  readonly appSlug: string;
  readonly permissions: Readonly<Record<string, string>>;
  readonly events: readonly string[];
  /** Where its owner accepts new permissions or changes its repositories. */
  readonly settingsUrl: string;
}

export interface DoctorGitHub {
  repository(): Promise<Read<{ readonly defaultBranch: string; readonly ownerType: string }>>;
  /** A file's text on `ref`; null when there is none. */
  file(path: string, ref: string): Promise<Read<string | null>>;
  secretNames(): Promise<Read<{ readonly repo: readonly string[]; readonly org: readonly string[] }>>;
  /** Repository variables over the organisation's shared ones. */
  variables(): Promise<Read<Readonly<Record<string, string>>>>;
  workflowPermissions(): Promise<Read<{ readonly canApprovePullRequestReviews: boolean }>>;
  /** The App's installation covering the repository (null: none); only with the App's credentials. */
  installation(): Promise<Read<Installation | null>>;
}

export interface AppCredentials {
  readonly appId: string;
  readonly privateKey: string;
}

export interface DoctorGitHubInput {
  readonly repo: GitHubRepository;
  readonly token: string;
  readonly baseUrl: string;
  readonly app: AppCredentials | null;
  readonly userAgent: string;
}

/** An app's JSON Web Token (RS256, valid 9 minutes, issued a minute back for clock drift), as GitHub documents it. */
export function appJwt(app: AppCredentials, now: Date): string {
  const seconds = Math.floor(now.getTime() / 1000);
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const unsigned = `${part({ alg: "RS256", typ: "JWT" })}.${part({ iat: seconds - 60, exp: seconds + 540, iss: app.appId })}`;
  const signature = createSign("RSA-SHA256").update(unsigned).sign(app.privateKey, "base64url");
  return `${unsigned}.${signature}`;
}

function statusOf(error: unknown): { status: number; message: string } {
  const e = error as { status?: unknown; message?: unknown };
  if (typeof e.status === "number") return { status: e.status, message: typeof e.message === "string" ? e.message : `HTTP ${e.status}` };
  throw error;
}

async function read<T>(call: () => Promise<T>): Promise<Read<T>> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    return { ok: false, ...statusOf(error) };
  }
}

/** Octokit logs every 4xx; doctor reports them itself, as findings. */
const QUIET = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

export function createDoctorGitHub(input: DoctorGitHubInput): DoctorGitHub {
  const octokit = new Octokit({ auth: input.token, baseUrl: input.baseUrl, userAgent: input.userAgent, log: QUIET });
  const repo = { owner: input.repo.owner, repo: input.repo.name };
  return {
    repository: () =>
      read(async () => {
        const { data } = await octokit.rest.repos.get(repo);
        return { defaultBranch: data.default_branch, ownerType: data.owner.type };
      }),
    file: (path, ref) =>
      read(async () => {
        try {
          const { data } = await octokit.rest.repos.getContent({ ...repo, path, ref });
          if (Array.isArray(data) || data.type !== "file" || !("content" in data)) return null;
          return Buffer.from(data.content, "base64").toString("utf8");
        } catch (error) {
          if (statusOf(error).status === 404) return null;
          throw error;
        }
      }),
    secretNames: () =>
      read(async () => {
        const mine = await octokit.paginate(octokit.rest.actions.listRepoSecrets, { ...repo, per_page: 100 });
        const shared = await octokit.paginate(octokit.rest.actions.listRepoOrganizationSecrets, { ...repo, per_page: 100 });
        return { repo: mine.map((s) => s.name), org: shared.map((s) => s.name) };
      }),
    variables: () =>
      read(async () => {
        const shared = await octokit.paginate(octokit.rest.actions.listRepoOrganizationVariables, { ...repo, per_page: 30 });
        const mine = await octokit.paginate(octokit.rest.actions.listRepoVariables, { ...repo, per_page: 30 });
        const values: Record<string, string> = {};
        for (const v of [...shared, ...mine]) values[v.name] = v.value;
        return values;
      }),
    workflowPermissions: () =>
      read(async () => {
        const { data } = await octokit.rest.actions.getGithubActionsDefaultWorkflowPermissionsRepository(repo);
        return { canApprovePullRequestReviews: data.can_approve_pull_request_reviews };
      }),
    installation: async () => {
      if (input.app === null) return { ok: false, status: 0, message: "no App credentials given" };
      const app = new Octokit({ auth: appJwt(input.app, new Date()), baseUrl: input.baseUrl, userAgent: input.userAgent, log: QUIET });
      return read(async () => {
        try {
          const { data } = await app.rest.apps.getRepoInstallation(repo);
          return { appSlug: data.app_slug, permissions: { ...data.permissions } as Record<string, string>, events: data.events, settingsUrl: data.html_url };
        } catch (error) {
          if (statusOf(error).status === 404) return null;
          throw error;
        }
      });
    },
  };
}
