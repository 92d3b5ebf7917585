/**
 * What every area of the Octokit adapter shares: the client, the repository, error mapping, and
 * the one rule for requests that create something — never repeat one blindly.
 */
import { OutcomeUnknownError, toGitHubError } from "./errors.ts";
import { UnansweredWriteError, type OctokitClient } from "./octokit-client.ts";
import type { RepoRef } from "./port.ts";

export interface AdapterContext {
  readonly octokit: OctokitClient;
  readonly repo: RepoRef;
  /** Runs one Octokit call; any failure becomes a typed GitHub error naming `operation`. */
  call<T>(operation: string, fn: () => Promise<T>): Promise<T>;
  /**
   * Runs a request marked ONCE. When it gets no usable answer, `check` looks for what it
   * would have created; only when that finds nothing is the request sent again (bounded).
   */
  createOnce<T>(p: { operation: string; create: () => Promise<T>; check: () => Promise<T | null> }): Promise<T>;
}

export interface ContextOptions {
  readonly octokit: OctokitClient;
  readonly repo: RepoRef;
  /** Sends of a ONCE request in all (default 3). */
  readonly attempts?: number;
  /** Waits between sends (n² × base, like plugin-retry). */
  readonly baseDelayMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
}

export function createAdapterContext(options: ContextOptions): AdapterContext {
  const attempts = options.attempts ?? 3;
  const baseDelayMs = options.baseDelayMs ?? 1000;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));

  const call = async <T>(operation: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (error) {
      throw mapError(operation, error);
    }
  };

  return {
    octokit: options.octokit,
    repo: options.repo,
    call,
    async createOnce({ operation, create, check }) {
      let last: unknown;
      for (let i = 0; i < attempts; i++) {
        if (i > 0) await sleep(i * i * baseDelayMs);
        try {
          return await create();
        } catch (error) {
          if (!(error instanceof UnansweredWriteError)) throw mapError(operation, error);
          last = error.cause;
        }
        const found = await call(`${operation} (checking whether it was created)`, check);
        if (found !== null) return found;
      }
      const cause = toGitHubError(operation, last);
      throw new OutcomeUnknownError({
        operation,
        status: "status" in cause && typeof cause.status === "number" ? cause.status : null,
        message: `no usable answer after ${attempts} attempts, and nothing was found created: try again later`,
        cause,
      });
    },
  };
}

/**
 * Octokit's errors (they carry the request they were for) become typed GitHub errors; our own
 * checks, such as a TypeError for a bad argument, are not GitHub's answers and stay as they are.
 */
export function mapError(operation: string, error: unknown): unknown {
  if (error instanceof UnansweredWriteError) return toGitHubError(operation, error.cause);
  const fromOctokit = typeof error === "object" && error !== null && ("request" in error || "status" in error);
  return fromOctokit ? toGitHubError(operation, error) : error;
}
