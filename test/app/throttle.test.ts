/** The render throttle: one render now, then at most one trailing render per interval and key. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createThrottle } from "../../src/app/throttle.ts";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("createThrottle", () => {
  it("renders at once, folds the requests of one interval into one trailing render, and keeps keys apart", async () => {
    const renders: string[] = [];
    const throttle = createThrottle({ intervalMs: 5000, now: () => Date.now(), onError: () => undefined });
    const render = (label: string) => async () => {
      renders.push(label);
    };
    expect(await throttle.request("m-1", render("first"))).toBe("now");
    expect(await throttle.request("m-1", render("second"))).toBe("later");
    expect(await throttle.request("m-1", render("third"))).toBe("joined");
    expect(await throttle.request("m-2", render("other"))).toBe("now");
    expect(renders).toEqual(["first", "other"]);
    await vi.advanceTimersByTimeAsync(5000);
    // The newest request's render runs: it reads the freshest state.
    expect(renders).toEqual(["first", "other", "third"]);
    expect(await throttle.request("m-1", render("fourth"))).toBe("later");
    throttle.close();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(renders).toEqual(["first", "other", "third"]);
  });

  it("hands a failed trailing render to onError (the next event renders again)", async () => {
    const errors: unknown[] = [];
    const throttle = createThrottle({ intervalMs: 1000, now: () => Date.now(), onError: (e) => errors.push(e) });
    await throttle.request("m-1", async () => undefined);
    await throttle.request("m-1", async () => {
      throw new Error("GitHub is down");
    });
    await vi.advanceTimersByTimeAsync(1000);
    expect(errors).toHaveLength(1);
  });
});
