/** Pushes that cannot refresh anything are told apart from the event alone, before any request. */
import { describe, expect, it } from "vitest";
import { pushedBase } from "./refresh-on-push.ts";

const after = "a".repeat(40);

describe("pushedBase", () => {
  it("takes a branch moved, and nothing else", () => {
    expect(pushedBase({ ref: "refs/heads/main", after, deleted: false })).toEqual({ branch: "main" });
    expect(pushedBase({ ref: "refs/heads/release/2.x", after, deleted: false })).toEqual({ branch: "release/2.x" });
    expect(pushedBase({ ref: "refs/heads/main", after: "0".repeat(40), deleted: true })).toEqual({ reason: "the branch was deleted" });
    expect(pushedBase({ ref: "refs/tags/v1", after, deleted: false })).toHaveProperty("reason");
    for (const own of ["naruto/m-1a2b3c4d", "naruto/m-1a2b3c4d--alpha", "naruto-state/m-1a2b3c4d", "naruto-state/by-issue/1/m-1a2b3c4d"])
      expect(pushedBase({ ref: `refs/heads/${own}`, after, deleted: false })).toEqual({ reason: `${own} is naruto's own branch` });
    // A branch that only starts like naruto's is someone's base.
    expect(pushedBase({ ref: "refs/heads/narutoish", after, deleted: false })).toEqual({ branch: "narutoish" });
  });
});
