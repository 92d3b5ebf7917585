/** `openIssue`: one issue per marker, even when GitHub's answer to the create was lost. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { markerFor } from "../../src/github/index.ts";
import { startTarget, type PortTarget } from "./target.ts";

let t: PortTarget;
const fake = () => {
  if (t.fake === null) throw new Error("these tests need the fake GitHub");
  return t.fake;
};
const since = () => new Date(Date.now() - 60_000).toISOString();
const issuesWith = (marker: string) => [...fake().repo("acme/demo").issues.values()].filter((i) => i.body?.startsWith(marker));

beforeAll(async () => {
  t = await startTarget({});
});
afterAll(async () => {
  fake().assertNoViolations();
  await t.close();
});

describe("openIssue", () => {
  it("opens an issue with the marker first, then finds it instead of opening another", async () => {
    const marker = markerFor("schedule:nightly:1");
    const first = await t.github.openIssue({ title: "naruto: nightly", body: "the mission", marker, since: since() });
    expect(first.created).toBe(true);
    const again = await t.github.openIssue({ title: "naruto: nightly", body: "the mission", marker, since: since() });
    expect(again).toEqual({ number: first.number, created: false });
    expect(issuesWith(marker)).toHaveLength(1);
    expect(issuesWith(marker)[0]?.title).toBe("naruto: nightly");
  });

  it("does not open a second issue when the answer to the first was a 5xx", async () => {
    const marker = markerFor("schedule:nightly:2");
    fake().faults.push({ method: "POST", path: /^\/repos\/acme\/demo\/issues$/, status: 502, after: true });
    const opened = await t.github.openIssue({ title: "naruto: nightly", body: "x", marker, since: since() });
    expect(issuesWith(marker)).toHaveLength(1);
    expect(opened.number).toBe(issuesWith(marker)[0]?.number);
  });

  it("only trusts issues by the given author", async () => {
    const marker = markerFor("schedule:nightly:3");
    // Someone else's issue carrying the marker is not naruto's.
    const other = await t.github.openIssue({ title: "forged", body: "x", marker, since: since() });
    const mine = await t.github.openIssue({ title: "naruto: nightly", body: "x", marker, since: since(), author: "someone-else[bot]" });
    expect(mine.created).toBe(true);
    expect(mine.number).not.toBe(other.number);
  });
});
