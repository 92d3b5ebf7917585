/**
 * The configured Octokit under the adapter: @octokit/rest 22 with plugin-retry and
 * plugin-throttling, set up against the traps in PLATFORM.md:
 *
 * - 409 and 422 are never retried (plugin-retry 8 retries 409 unless told otherwise), and
 *   `request.retries` is never passed (a value there makes the plugin retry even `doNotRetry`).
 * - A request marked {@link ONCE} (one that creates something) is not retried after a 5xx or a
 *   timeout: it fails with {@link UnansweredWriteError} and the adapter checks whether it took
 *   effect before trying again. Other requests get plugin-retry's backoff.
 * - Rate limits wait and retry a bounded number of times (plugin-throttling); a 429, or a 403
 *   with `retry-after`, counts as a secondary limit even when the message does not say so.
 * - A token that cannot be had (`auth` failed) fails the request with {@link TokenUnavailableError},
 *   never with the token request's status as if it were this request's answer.
 * - Every attempt has its own deadline (`AbortSignal.timeout` in a fetch wrapper), so a retry
 *   never starts with a signal that already fired.
 * - With an {@link EtagCache}, a GET whose answer was seen before is sent with `If-None-Match`:
 *   GitHub answers an unchanged resource 304, which does not count against the rate limit, and
 *   the answer seen before is returned.
 */
import { Octokit } from "@octokit/rest";
import { retry } from "@octokit/plugin-retry";
import { throttling } from "@octokit/plugin-throttling";
import Bottleneck from "bottleneck";
import { TokenUnavailableError } from "./errors.ts";
import { createLru } from "./lru.ts";

export interface GitHubLog {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface OctokitClientOptions {
  /** A token, or a function giving the current one (installation tokens expire after 1 h). */
  readonly token?: string;
  readonly auth?: () => Promise<string>;
  /** `https://api.github.com`, or `https://HOST/api/v3` for GitHub Enterprise Server. */
  readonly baseUrl?: string;
  readonly fetch?: typeof globalThis.fetch;
  readonly userAgent: string;
  /** Deadline of one HTTP attempt (default 30 s). */
  readonly requestTimeoutMs?: number;
  /** 5xx and timeouts on requests that may be repeated: attempts after the first, and the base delay (n² × base). */
  readonly retry?: { readonly retries?: number; readonly baseDelayMs?: number };
  /** Rate limits: how many waits, and the longest wait worth taking (longer ones fail at once). */
  readonly rateLimit?: { readonly retries?: number; readonly maxWaitSeconds?: number };
  /** Spacing of writes after a short burst (see {@link spacing}), as GitHub asks; tests use 0. */
  readonly throttle?: { readonly writeIntervalMs?: number; readonly notificationIntervalMs?: number };
  readonly log?: GitHubLog;
  /** Answers of GETs with their ETags, for conditional requests (shared by the clients of one installation). */
  readonly etags?: EtagCache;
}

/** A GET's last 200 answer and its ETag, by method and URL. */
export interface EtagCache {
  get(key: string): { readonly etag: string; readonly response: unknown } | undefined;
  set(key: string, value: { readonly etag: string; readonly response: unknown }): void;
}

/** An {@link EtagCache} of the `limit` most recently used URLs. */
export function createEtagCache(limit = 500): EtagCache {
  return createLru(limit);
}

/**
 * Writes one client may make back to back before the spacing applies. A webhook handler makes
 * about eight (reaction, state commit, queue branch, dispatch, comment) and must answer within
 * GitHub's 10 s; spaced a second apart from the first they took most of that. GitHub's limits
 * are per minute (80 content-creating requests) and ask for a second between writes when there
 * are many: a short burst, then one per interval, keeps well inside both.
 */
export const WRITE_BURST = 10;
/** Comments and other requests that notify people, back to back before their spacing applies. */
export const NOTIFICATION_BURST = 3;

/**
 * A limiter for one kind of request: up to `burst` at once-in-a-row, then one per `intervalMs`
 * (a leaky bucket refilled one request per interval); no spacing at all for an interval of 0.
 */
export function spacing(intervalMs: number, burst: number): Bottleneck.ConstructorOptions {
  if (!(intervalMs > 0)) return { maxConcurrent: 1, minTime: 0 };
  return { maxConcurrent: 1, reservoir: burst, reservoirIncreaseAmount: 1, reservoirIncreaseInterval: intervalMs, reservoirIncreaseMaximum: burst };
}

/** `request` options that mark a request which must not be repeated blindly. */
export const ONCE = { narutoOnce: true } as const;

/** A {@link ONCE} request got no usable answer (5xx, timeout, network): it may have taken effect. */
export class UnansweredWriteError extends Error {
  override readonly name = "UnansweredWriteError";
  readonly status: number | null;
  /** Kept so plugin-retry's scheduler can read the request it wraps (and sees no retries asked). */
  readonly request: unknown;
  constructor(cause: unknown, request: unknown) {
    const status = (cause as { status?: unknown }).status;
    super("no usable answer to a request that creates something", { cause });
    this.status = null;
    this.request = request;
    void status;
  }
}

const NaurotoOctokit = Octokit.plugin(narutoHooks, retry, throttling);
export type OctokitClient = InstanceType<typeof NaurotoOctokit>;

let clients = 0;

export function createOctokitClient(options: OctokitClientOptions): OctokitClient {
  if ((options.token === undefined) === (options.auth === undefined)) throw new TypeError("createGitHub: pass exactly one of token and auth");
  const timeoutMs = options.requestTimeoutMs ?? 30_000;
  const baseFetch = options.fetch ?? globalThis.fetch;
  const rateRetries = options.rateLimit?.retries ?? 3;
  const maxWait = options.rateLimit?.maxWaitSeconds ?? 15 * 60;
  const onLimit = (kind: string) => (retryAfter: number, request: { method: string; url: string }, _octokit: unknown, retryCount: number) => {
    const wait = retryCount < rateRetries && retryAfter <= maxWait;
    options.log?.warn(
      `GitHub ${kind} on ${request.method} ${request.url}: ${wait ? `waiting ${retryAfter} s (retry ${retryCount + 1} of ${rateRetries})` : "giving up"}`,
    );
    return wait;
  };
  const octokit = new NaurotoOctokit({
    ...(options.token === undefined ? {} : { auth: options.token }),
    ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl.replace(/\/+$/, "") }),
    log: octokitLog(options.log),
    userAgent: options.userAgent,
    request: { fetch: withTimeout(baseFetch, timeoutMs), narutoAuth: options.auth, narutoEtags: options.etags },
    retry: {
      retries: options.retry?.retries ?? 3,
      retryAfterBaseValue: options.retry?.baseDelayMs ?? 1000,
      // plugin-retry's defaults plus 409 (conflict) and 429 (left to the throttling plugin).
      doNotRetry: [400, 401, 403, 404, 409, 410, 422, 429, 451],
    },
    throttle: {
      // A key of our own: the plugin's limiters are shared by every client with the same id.
      id: `naruto-${++clients}`,
      write: new Bottleneck.Group(spacing(options.throttle?.writeIntervalMs ?? 1000, WRITE_BURST)),
      notifications: new Bottleneck.Group(spacing(options.throttle?.notificationIntervalMs ?? 3000, NOTIFICATION_BURST)),
      onSecondaryRateLimit: onLimit("secondary rate limit"),
      onRateLimit: onLimit("rate limit"),
    },
  });
  return octokit;
}

/** The innermost hooks: per-attempt auth, ONCE requests, secondary-limit recognition, conditional GETs. */
function narutoHooks(octokit: Pick<Octokit, "hook" | "request">): Record<string, never> {
  octokit.hook.wrap("request", async (request, options) => {
    const etags = options.request?.["narutoEtags"] as EtagCache | undefined;
    if (etags === undefined || options.method !== "GET") return request(options);
    const { url } = octokit.request.endpoint.parse(options);
    const key = `GET ${url}`;
    const seen = etags.get(key);
    if (seen !== undefined) options.headers["if-none-match"] = seen.etag;
    try {
      const response = await request(options);
      const etag = (response.headers as Record<string, string | undefined>)["etag"];
      // Kept and handed out as copies: `octokit.paginate` reshapes the answer it is given in place
      // (a run's `{ total_count, jobs }` becomes the list), so a 304 answered with the object a
      // first read reshaped came back as one job instead of a page (every later page lost).
      if (etag !== undefined && response.status === 200) etags.set(key, { etag, response: structuredClone(response) });
      return response;
    } catch (error) {
      if (seen !== undefined && (error as { status?: unknown }).status === 304) return structuredClone(seen.response) as Awaited<ReturnType<typeof request>>;
      throw error;
    }
  });
  octokit.hook.before("request", async (options) => {
    const auth = options.request?.["narutoAuth"] as (() => Promise<string>) | undefined;
    if (!auth) return;
    let token: string;
    try {
      token = await auth();
    } catch (error) {
      // The token request's answer (say a 404 for a removed installation) is not this request's:
      // read as this one's, it would become "no such file" or "no permission".
      throw new TokenUnavailableError({ cause: error, request: options });
    }
    options.headers.authorization = `token ${token}`;
  });
  octokit.hook.error("request", (error, options) => {
    // Never sent: neither retried here (it has no status) nor an unanswered write.
    if (error instanceof TokenUnavailableError) throw error;
    const e = error as { status?: unknown; message: string; response?: { headers?: Record<string, string | undefined> } };
    const status = typeof e.status === "number" ? e.status : null;
    if (options.request?.["narutoOnce"] === true && (status === null || status >= 500)) throw new UnansweredWriteError(error, options);
    // plugin-throttling recognises a secondary limit only by its message; GitHub documents
    // 403/429 with retry-after as one too, so make such answers say so.
    const retryAfter = e.response?.headers?.["retry-after"];
    if ((status === 429 || (status === 403 && retryAfter !== undefined)) && !/\bsecondary rate\b/i.test(e.message)) {
      e.message = `${e.message} (secondary rate limit)`;
    }
    throw error;
  });
  return {};
}

/**
 * Octokit's request-log plugin reports every 4xx as an error, including the 404s that are
 * answers here ("no such file"); failures reach the caller as typed errors, so per-request
 * lines are debug detail. Without a log, the adapter is silent.
 */
function octokitLog(log: GitHubLog | undefined): GitHubLog {
  const debug = (message: string) => log?.debug(message);
  return { debug, info: debug, warn: (message) => log?.warn(message), error: debug };
}

function withTimeout(fetchImpl: typeof globalThis.fetch, ms: number): typeof globalThis.fetch {
  return (input, init) => {
    const timeout = AbortSignal.timeout(ms);
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    return fetchImpl(input, { ...init, signal });
  };
}
