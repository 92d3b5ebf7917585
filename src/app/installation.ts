/**
 * The GitHub port for one webhook's installation, on the same adapter the Action uses
 * (`createGitHub`): Probot's installation octokit only lends its token (cached and refreshed by
 * octokit-auth-app), so retries, throttling and the checked re-sends of creating requests are
 * naruto's own, not a second configuration of them.
 */
import type { Context } from "probot";
import type { DriverDeps } from "../github-driver/index.ts";
import { pullRequestHeadVia, type PullRequestHead } from "../github-driver/index.ts";
import { createDispatchMemory, createEtagCache, createGitHub, type DispatchMemory, type EtagCache } from "../github/index.ts";
import { createGitHubMissionStore } from "../store/index.ts";
import { createLru, type Lru } from "../github/index.ts";
import { createRedactor, redactingGitHub, redactingStore } from "../redact/index.ts";
import type { AppDeps } from "./deps.ts";

export interface InstallationDeps extends DriverDeps {
  readonly pullRequestHead: (number: number) => Promise<PullRequestHead | null>;
}

/**
 * The installation token Probot's octokit would send. Probot mints (and caches) installation
 * tokens inside its octokit's request hook, which knows the GHE base URL; calling its `auth()`
 * directly would mint through a request without it (api.github.com). So the token is read from
 * a request that never leaves the process: the hook authorizes it, this `fetch` answers it.
 */
export async function installationToken(octokit: Context["octokit"]): Promise<string> {
  let authorization = "";
  const capture = (_url: unknown, init?: { headers?: unknown }) => {
    authorization = new Headers(init?.headers as ConstructorParameters<typeof Headers>[0]).get("authorization") ?? "";
    return Promise.resolve(new Response("{}", { status: 200, headers: { "content-type": "application/json" } }));
  };
  await octokit.request("GET /naruto-token-probe", { request: { fetch: capture } });
  const token = /^(?:token|bearer) (.+)$/i.exec(authorization)?.[1];
  if (token === undefined) throw new Error("Probot gave no installation token: is the webhook from an installation of this app?");
  return token;
}

/**
 * Probot mints an installation token and caches it for 59 of its 60 minutes; asking it through
 * a request costs a trip through its octokit's hooks (about 15 ms), once per request of naruto's.
 * This keeps the token it gave for each installation for 50 minutes from when naruto first saw
 * that token, so the token it hands out has at least 10 minutes left, and asks again after.
 */
export const TOKEN_FRESH_MS = 50 * 60 * 1000;

export type TokenCache = (installation: number, probe: () => Promise<string>) => Promise<string>;

export function createTokenCache(now: () => number): TokenCache {
  const known = new Map<number, { token: string; firstSeen: number }>();
  return async (installation, probe) => {
    const hit = known.get(installation);
    if (hit !== undefined && now() - hit.firstSeen < TOKEN_FRESH_MS) return hit.token;
    const token = await probe();
    // The same token again (Probot still caches it) keeps the time it was first seen.
    known.set(installation, { token, firstSeen: hit?.token === token ? hit.firstSeen : now() });
    return token;
  };
}

// One cache per App (its deps), not per process: tests run several Apps in one process.
const tokenCaches = new WeakMap<AppDeps, TokenCache>();
const etagCaches = new WeakMap<AppDeps, Lru<EtagCache>>();
const dispatchMemories = new WeakMap<AppDeps, Lru<DispatchMemory>>();

/**
 * What the App learned of a server's dispatch API per installation and repository: a GitHub
 * Enterprise Server that refused `return_run_details` once is not sent it again (each refusal
 * costs a request and a second dispatch).
 */
function dispatchMemoryOf(deps: AppDeps, key: string): DispatchMemory {
  let memories = dispatchMemories.get(deps);
  if (memories === undefined) {
    memories = createLru(100);
    dispatchMemories.set(deps, memories);
  }
  let memory = memories.get(key);
  if (memory === undefined) {
    memory = createDispatchMemory();
    memories.set(key, memory);
  }
  return memory;
}

/**
 * The answers of GETs this App made for one installation and repository, with their ETags:
 * a webhook's reads of what did not change since the last one (the state ref, the queue pull
 * request, the comments) are answered 304, which GitHub does not count against the rate limit.
 * The 100 repositories seen last keep theirs.
 */
function etagCacheOf(deps: AppDeps, key: string): EtagCache {
  let caches = etagCaches.get(deps);
  if (caches === undefined) {
    caches = createLru(100);
    etagCaches.set(deps, caches);
  }
  let cache = caches.get(key);
  if (cache === undefined) {
    cache = createEtagCache();
    caches.set(key, cache);
  }
  return cache;
}

function tokenCacheOf(deps: AppDeps): TokenCache {
  let cache = tokenCaches.get(deps);
  if (cache === undefined) {
    cache = createTokenCache(() => deps.now().getTime());
    tokenCaches.set(deps, cache);
  }
  return cache;
}

/**
 * Works for any event with a `repository` (every event the manifest subscribes to). Everything
 * it writes goes through the redactor (docs/architecture.md): comments, checks, the mission document,
 * the log; the installation tokens it mints are `ghs_` tokens, a known format.
 */
export function installationDeps(deps: AppDeps, context: Context, where: { owner: string; repo: string; defaultBranch: string }): InstallationDeps {
  const repo = { owner: where.owner, repo: where.repo };
  const octokit = context.octokit;
  // Probot sets the API base from GHE_HOST/GHE_PROTOCOL (or `baseUrl`): reuse it as is.
  const baseUrl = octokit.request.endpoint.DEFAULTS.baseUrl;
  const installation = (context.payload as { installation?: { id?: unknown } }).installation?.id;
  const probe = () => installationToken(octokit);
  const cache = tokenCacheOf(deps);
  const token = typeof installation === "number" ? () => cache(installation, probe) : probe;
  const log = context.log;
  const redactor = createRedactor({ secrets: deps.secrets });
  const text = (message: string) => redactor.redact(message);
  const key = `${String(installation)}:${where.owner}/${where.repo}`.toLowerCase();
  const raw = createGitHub({
    auth: token,
    etags: etagCacheOf(deps, key),
    dispatch: dispatchMemoryOf(deps, key),
    repo,
    baseUrl,
    userAgent: deps.userAgent,
    ...deps.client,
    log: { debug: (m) => log.debug(text(m)), info: (m) => log.info(text(m)), warn: (m) => log.warn(text(m)), error: (m) => log.error(text(m)) },
  });
  const github = redactingGitHub(raw, redactor);
  return {
    github,
    store: redactingStore(createGitHubMissionStore({ github: raw }), redactor),
    now: deps.now,
    workflow: deps.workflow,
    // Runs are dispatched on the default branch: its workflow file is the reviewed one.
    ref: where.defaultBranch,
    log: { info: (m) => log.info(text(m)), warning: (m) => log.warn(text(m)) },
    botLogin: deps.botLogin,
    runUrl: null,
    // The App opens the queue pull request with its own token, which starts workflows (result-ci.ts).
    resultCi: "app",
    pullRequestHead: pullRequestHeadVia(github),
  };
}
