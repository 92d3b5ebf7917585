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
  it("lets checks go on at once when no start is under way", async () => {
    expect(await settled(createStartsFirst().idle())).toBe(true);
  });

  it("holds checks until every start under way has ended", async () => {
    const gate = createStartsFirst();
    const endA = gate.begin();
    const endB = gate.begin();
    const waiting = gate.idle();
    endA();
    endA(); // a second call ends nothing more
    expect(await settled(waiting)).toBe(false);
    endB();
    expect(await settled(waiting)).toBe(true);
  });

  it("lets every wait go when the drive is over, and holds nothing after", async () => {
    const gate = createStartsFirst();
    gate.begin();
    const waiting = gate.idle();
    gate.release();
    expect(await settled(waiting)).toBe(true);
    gate.begin();
    expect(await settled(gate.idle())).toBe(true);
  });
});
