import { describe, expect, it } from "vitest";
import type { RunArtifact } from "../../github/index.ts";
import { forgeryEvent, reconcileLegs } from "./forgeries.ts";

const leg = (item: string, attempt = 1) => ({ item, attempt });

describe("reconcileLegs: the queue job's record can never add a leg", () => {
  it("in an integrate run takes the legs both jobs found ended, leaves the later ones, and names the record's others", () => {
    const known = [leg("fast"), leg("mid")];
    expect(reconcileLegs({ known, reported: [leg("fast"), leg("slow")], integrate: true, settled: [] })).toEqual({
      take: [leg("fast")],
      left: [leg("mid")],
      stale: [],
      unknown: [leg("slow")],
    });
  });

  it("in a work run takes every leg publish found ended, whatever the record says", () => {
    expect(reconcileLegs({ known: [leg("a"), leg("b")], reported: null, integrate: false, settled: [] })).toEqual({
      take: [leg("a"), leg("b")],
      left: [],
      stale: [],
      unknown: [],
    });
    expect(reconcileLegs({ known: [leg("a")], reported: [leg("a"), leg("a", 2)], integrate: false, settled: [] }).unknown).toEqual([leg("a", 2)]);
  });

  it("takes nothing of a leg another run recorded meanwhile, and does not call its line a forgery", () => {
    // The work run's own publish saved slow#1 while an integrate run's queue job took it too.
    expect(reconcileLegs({ known: [], reported: [leg("slow")], integrate: true, settled: [leg("slow"), leg("fast")] })).toEqual({
      take: [],
      left: [],
      stale: [leg("slow")],
      unknown: [],
    });
    // A line naming a leg still at work stays a forgery.
    expect(reconcileLegs({ known: [], reported: [leg("slow")], integrate: true, settled: [leg("fast")] }).unknown).toEqual([leg("slow")]);
  });
});

describe("forgeryEvent", () => {
  const artifact: RunArtifact = { id: 9, name: "naruto-work-slow-1", sizeInBytes: 10, digest: "sha256:ab", createdAt: null, expired: false, runId: 41 };

  it("records each refused artifact and each unknown record line as a forgery in the tamper record, blaming no attempt", () => {
    const event = forgeryEvent({
      at: "2026-12-01T00:00:00Z",
      forgeries: [{ artifact, runId: 41, reason: "slow#1's leg is still at work" }],
      unknownEntries: [leg("slow")],
      runId: 50,
    });
    expect(event).toMatchObject({ type: "tampered" });
    expect(event?.type === "tampered" ? event.findings.map((f) => [f.what, f.after, f.blame, f.attempts]) : null).toEqual([
      ["artifact naruto-work-slow-1 of run 41", "sha256:ab", "forged_artifact", []],
      ["queue.json of run 50", "names slow#1", "forged_artifact", []],
    ]);
  });

  it("is nothing when nothing was refused", () => {
    expect(forgeryEvent({ at: "2026-12-01T00:00:00Z", forgeries: [], unknownEntries: [], runId: 1 })).toBeNull();
  });
});
