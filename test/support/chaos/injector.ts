/**
 * A seeded fault campaign's injector (issue 18): for every API request and webhook delivery the
 * fake GitHub serves, a fault with some probability, drawn from a generator seeded once, so that
 * the same seed replays the same faults for the same sequence of requests. It plugs into the
 * fake as its {@link FaultSource}; every fault it gives is logged, for the line that reports a
 * failing seed.
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

export const DEFAULT_RATES: ChaosRates = { serverErrorBefore: 0.02, serverErrorAfter: 0.02, secondaryLimit: 0.01, primaryLimit: 0.003, delay: 0.03, maxDelayMs: 2_000, dropWebhook: 0.05 };

export interface InjectedFault {
  /** The how-manieth request or delivery the injector was asked about (from 1). */
  readonly n: number;
  readonly what: string;
  readonly fault: string;
}

export interface Injector extends FaultSource {
  readonly log: readonly InjectedFault[];
  /** Stops injecting (the campaign checks the final state without faults). */
  stop(): void;
}

export function createInjector(seed: number, rates: ChaosRates = DEFAULT_RATES): Injector {
  const random = seededRandom(seed);
  const log: InjectedFault[] = [];
  let asked = 0;
  let stopped = false;
  const note = (what: string, fault: string) => log.push({ n: asked, what, fault });
  return {
    log,
    stop: () => {
      stopped = true;
    },
    request({ method, path, git }) {
      if (stopped || git) return null;
      asked++;
      const what = `${method} ${path}`;
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
      asked++;
      if (random() >= rates.dropWebhook) return false;
      note(`webhook ${event}`, "dropped");
      return true;
    },
  };
}
