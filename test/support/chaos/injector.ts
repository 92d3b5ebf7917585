/**
 * A seeded fault campaign's injector (issue 18): for every API request and webhook delivery the
 * fake GitHub serves, a fault with some probability. The draw for a request depends only on the
 * seed, the request (method and path, or the webhook's event) and how many of the same came
 * before it, not on how the App's and the jobs' requests interleave: the same seed replays the
 * same faults for the same requests, whichever process asks first. It plugs into the fake as its
 * {@link FaultSource}; every fault it gives is logged, for the line that reports a failing seed.
 *
 * Git's own protocol (checkouts, fetches, pushes) is left alone: its faults are a job's failure,
 * which the scenarios already cover; the campaign is about the API and the webhooks.
 */
import type { FaultSource } from "../fake-github/index.ts";
import { seededRandom } from "../seeded-random.ts";

export interface ChaosRates {
  /** A 5xx before the request takes effect. */
  readonly serverErrorBefore: number;
  /** A 5xx after it took effect: the answer is lost, the effect is not. */
  readonly serverErrorAfter: number;
  /** A secondary rate limit (403 or 429 with `retry-after`). */
  readonly secondaryLimit: number;
  /** The primary rate limit, reset a few seconds away. */
  readonly primaryLimit: number;
  /** A slow answer (up to `maxDelayMs`). */
  readonly delay: number;
  readonly maxDelayMs: number;
  /** A webhook delivery that never arrives. */
  readonly dropWebhook: number;
}

export const DEFAULT_RATES: ChaosRates = {
  serverErrorBefore: 0.02,
  serverErrorAfter: 0.02,
  secondaryLimit: 0.01,
  primaryLimit: 0.003,
  delay: 0.03,
  maxDelayMs: 2_000,
  dropWebhook: 0.05,
};

/** No fault at all: the campaign's control. */
export const NO_FAULTS: ChaosRates = { serverErrorBefore: 0, serverErrorAfter: 0, secondaryLimit: 0, primaryLimit: 0, delay: 0, maxDelayMs: 0, dropWebhook: 0 };

export interface InjectedFault {
  /** The how-manieth request or delivery the injector was asked about (from 1). */
  readonly n: number;
  /** The how-manieth of the same request or event (from 1). */
  readonly occurrence: number;
  readonly what: string;
  readonly fault: string;
}

export interface Injector extends FaultSource {
  readonly log: readonly InjectedFault[];
  /** Stops injecting (the campaign checks the final state without faults). */
  stop(): void;
}

export function createInjector(seed: number, rates: ChaosRates = DEFAULT_RATES): Injector {
  const log: InjectedFault[] = [];
  const seen = new Map<string, number>();
  let asked = 0;
  let stopped = false;
  let occurrence = 0;
  /** The draws for this request: a generator of its own, seeded by the seed, the request and its occurrence. */
  const drawsFor = (what: string) => {
    asked++;
    occurrence = (seen.get(what) ?? 0) + 1;
    seen.set(what, occurrence);
    return seededRandom(mix(seed, mix(hash(what), occurrence)));
  };
  const note = (what: string, fault: string) => log.push({ n: asked, occurrence, what, fault });
  return {
    log,
    stop: () => {
      stopped = true;
    },
    request({ method, path, git }) {
      if (stopped || git) return null;
      const what = `${method} ${path}`;
      const random = drawsFor(what);
      let roll = random();
      const pick = (rate: number) => {
        const hit = roll < rate;
        roll -= rate;
        return hit;
      };
      if (pick(rates.serverErrorBefore)) {
        note(what, "503 before the effect");
        return { failure: { path, status: 503 } };
      }
      if (pick(rates.serverErrorAfter)) {
        note(what, "502 after the effect");
        return { failure: { path, status: 502, after: true } };
      }
      if (pick(rates.secondaryLimit)) {
        const status = random() < 0.5 ? 403 : 429;
        const retryAfterSeconds = 1 + Math.floor(random() * 2);
        note(what, `secondary rate limit ${status}, retry after ${retryAfterSeconds} s`);
        return { failure: { path, secondaryRateLimit: { status, retryAfterSeconds } } };
      }
      if (pick(rates.primaryLimit)) {
        const resetInSeconds = 2 + Math.floor(random() * 3);
        note(what, `primary rate limit, reset in ${resetInSeconds} s`);
        return { failure: { path, primaryRateLimit: { resetInSeconds } } };
      }
      if (pick(rates.delay)) {
        const delayMs = Math.floor(random() * rates.maxDelayMs);
        note(what, `${delayMs} ms late`);
        return { delayMs };
      }
      return null;
    },
    dropWebhook(event) {
      if (stopped) return false;
      if (drawsFor(`webhook ${event}`)() >= rates.dropWebhook) return false;
      note(`webhook ${event}`, "dropped");
      return true;
    },
  };
}

/** FNV-1a of a string's UTF-16 code units. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Two 32-bit values into one seed (murmur3's finalizer over their combination). */
function mix(a: number, b: number): number {
  let h = (Math.imul(a >>> 0, 0x9e3779b1) ^ (b >>> 0)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
