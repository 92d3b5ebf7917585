import { describe, expect, it } from "vitest";
import { createStartsFirst } from "./starts-first.ts";

/** Whether `p` has settled once everything already queued has run. */
async function settled(p: Promise<void>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setImmediate(r));
  return done;
}

describe("starts first", () => {
  it("holds an exit's checks until the starts dispatched with it have their work directories", async () => {
    const gate = createStartsFirst();
    const room = gate.roomMade("a#1");
    expect(await settled(room)).toBe(false); // not applied yet
    let ends: (() => void)[] = [];
    gate.dispatching(["a#1"], () => {
      ends = [gate.begin(), gate.begin()];
    });
    const [first, second] = ends;
    first?.();
    first?.(); // a second call ends nothing more
    expect(await settled(room)).toBe(false);
    second?.();
    expect(await settled(room)).toBe(true);
  });

  it("does not hold an exit's checks for a start dispatched after it", async () => {
    const gate = createStartsFirst();
    const room = gate.roomMade("a#1");
    gate.dispatching(["a#1"], () => undefined);
    gate.dispatching([], () => void gate.begin()); // made room for by something else
    gate.begin(); // outside any dispatch
    expect(await settled(room)).toBe(true);
  });

  it("lets the checks of a refused exit go, and every wait when the drive is over", async () => {
    const gate = createStartsFirst();
    const refused = gate.roomMade("a#1");
    gate.settle(["a#1"]);
    expect(await settled(refused)).toBe(true);
    const pending = gate.roomMade("b#1");
    gate.release();
    expect(await settled(pending)).toBe(true);
    expect(await settled(gate.roomMade("c#1"))).toBe(true);
  });
});
