/**
 * Fault injection: tests push faults onto `server.faults`; each matching request (or webhook
 * delivery) uses one of its `times` (default 1) and the fault is removed when none are left.
 *
 * `path` is compared with the request path without the `/api/v3` prefix and without the query,
 * still percent-encoded as sent (`/repos/acme/demo/git/refs/heads%2Fmain`): a string must be
 * equal to it, a RegExp must match it.
 */
import type { Reply } from "./errors.ts";
import { DOCS_URL } from "./errors.ts";

interface RequestMatch {
  readonly method?: string;
  readonly path: RegExp | string;
  times?: number;
}

/** A 5xx answer; with `after: true` the request is carried out first and only the answer is lost. */
export interface ServerErrorFault extends RequestMatch {
  readonly status: 500 | 502 | 503;
  readonly after?: boolean;
}

/** GitHub's secondary rate limit: 403 or 429 with `retry-after` and the message Octokit looks for. */
export interface SecondaryRateLimitFault extends RequestMatch {
  readonly secondaryRateLimit: { readonly status: 403 | 429; readonly retryAfterSeconds?: number };
}

/** The primary rate limit: 403 with `x-ratelimit-remaining: 0` and a reset time. */
export interface PrimaryRateLimitFault extends RequestMatch {
  readonly primaryRateLimit: { readonly resetInSeconds: number };
}

/** A slow answer: the request waits `delayMs` and is then served normally. */
export interface DelayFault extends RequestMatch {
  readonly delayMs: number;
}

/** A webhook delivery that never arrives (recorded, so it can be redelivered). */
export interface DropWebhookFault {
  readonly dropWebhook: true;
  readonly event?: string;
  times?: number;
}

export type Fault = ServerErrorFault | SecondaryRateLimitFault | PrimaryRateLimitFault | DelayFault | DropWebhookFault;
export type RequestFault = Exclude<Fault, DropWebhookFault>;

/**
 * Faults decided per request rather than queued (a seeded campaign, test/support/chaos/): asked
 * for every request and delivery that no queued fault answers. `delayMs` slows the request, then
 * `failure` (if any) answers it.
 */
export interface FaultSource {
  request(input: {
    readonly method: string;
    readonly path: string;
    readonly git: boolean;
  }): { readonly delayMs?: number; readonly failure?: Exclude<RequestFault, DelayFault> } | null;
  dropWebhook(event: string): boolean;
}

function use<T extends { times?: number }>(faults: Fault[], fault: T & Fault): T {
  fault.times = (fault.times ?? 1) - 1;
  if (fault.times <= 0) faults.splice(faults.indexOf(fault), 1);
  return fault;
}

function matches(fault: RequestFault, method: string, path: string): boolean {
  if (fault.method !== undefined && fault.method.toUpperCase() !== method) return false;
  return typeof fault.path === "string" ? fault.path === path : fault.path.test(path);
}

/** The total delay to apply and the failing answer (if any) for this request, using them up. */
export function takeRequestFaults(faults: Fault[], method: string, path: string): { delayMs: number; failure: RequestFault | undefined } {
  let delayMs = 0;
  for (const fault of [...faults]) {
    if ("dropWebhook" in fault || !("delayMs" in fault) || !matches(fault, method, path)) continue;
    delayMs += use(faults, fault).delayMs;
  }
  const failure = faults.find((f): f is RequestFault => !("dropWebhook" in f) && !("delayMs" in f) && matches(f, method, path));
  return { delayMs, failure: failure === undefined ? undefined : use(faults, failure) };
}

export function takeWebhookDrop(faults: Fault[], event: string): boolean {
  const fault = faults.find((f): f is DropWebhookFault => "dropWebhook" in f && (f.event === undefined || f.event === event));
  if (fault === undefined) return false;
  use(faults, fault);
  return true;
}

const REASONS: Record<number, string> = { 500: "Server Error", 502: "Bad Gateway", 503: "Service Unavailable" };

export function faultReply(fault: RequestFault, nowMs: number): Reply {
  if ("status" in fault) {
    return { status: fault.status, body: { message: REASONS[fault.status] ?? "Server Error", documentation_url: DOCS_URL, status: String(fault.status) } };
  }
  if ("secondaryRateLimit" in fault) {
    const { status, retryAfterSeconds = 1 } = fault.secondaryRateLimit;
    return {
      status,
      headers: { "retry-after": String(retryAfterSeconds) },
      body: {
        message:
          "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID 0000:0000:0000000:0000000:00000000.",
        documentation_url: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits",
        status: String(status),
      },
    };
  }
  if ("primaryRateLimit" in fault) {
    return {
      status: 403,
      headers: {
        "x-ratelimit-limit": "5000",
        "x-ratelimit-remaining": "0",
        "x-ratelimit-used": "5000",
        "x-ratelimit-reset": String(Math.ceil(nowMs / 1000) + fault.primaryRateLimit.resetInSeconds),
        "x-ratelimit-resource": "core",
      },
      body: {
        message: "API rate limit exceeded for installation. If you reach out to GitHub Support for help, please include the request ID 0000:0000.",
        documentation_url: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-the-primary-rate-limit",
        status: "403",
      },
    };
  }
  throw new Error("a delay is not a failing answer");
}
