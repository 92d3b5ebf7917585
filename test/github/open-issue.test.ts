/**
 * `openIssue`: one issue per marker, even when GitHub's answer to the create was lost; marker
 * comments found whichever of naruto's identities (the App, the workflow) wrote them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGitHub, markerFor } from "../../src/github/index.ts";
import { WORKFLOW_BOT } from "../../src/github-driver/deps.ts";
import { publishTracking } from "../../src/github-driver/publish.ts";
import { trackingMarker } from "../../src/report/index.ts";
import { requested, run } from "../support/mission-builders.ts";
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

describe("marker comments by naruto's two identities", () => {
  it("the App and the workflow's jobs update one tracking comment, whichever of them made it", async () => {
    const mission = {
      ...run([requested()]).at(-1)!.mission,
      source: { kind: "github" as const, repo: "acme/demo", issue: 1, comment_id: null, actor: "octo-maintainer" },
    };
    const workflowToken = fake().issueAppToken({ owner: "acme", permissions: { issues: "write" }, bot: WORKFLOW_BOT }).token;
    const asWorkflow = createGitHub({
      token: workflowToken,
      repo: { owner: "acme", repo: "demo" },
      baseUrl: fake().url,
      userAgent: "naruto-tests",
      throttle: { writeIntervalMs: 0, notificationIntervalMs: 0 },
    });
    const log = { info: () => undefined, warning: () => undefined };
    // A scheduled mission: the sweep (the workflow) made the tracking comment; then the App renders.
    await publishTracking({ github: asWorkflow, botLogin: "naruto[bot]", runUrl: null, log }, mission, null);
    const appLogin = (await t.github.upsertComment({ issue: 1, marker: markerFor("who-am-i"), body: "x" })).author!;
    await publishTracking({ github: t.github, botLogin: appLogin, runUrl: null, log }, { ...mission, task: "rendered by the App" }, null);
    const tracking = [...fake().repo("acme/demo").comments.values()].filter((c) => c.body.startsWith(trackingMarker(mission.id)));
    expect(tracking.map((c) => c.user.login)).toEqual([WORKFLOW_BOT]);
    expect(tracking[0]?.body).toContain("rendered by the App");
  });

  it("still does not take a marker pasted by a person for naruto's", async () => {
    const marker = markerFor("pasted");
    await fetch(`${fake().url}/repos/acme/demo/issues/1/comments`, {
      method: "POST",
      headers: { authorization: `token ${fake().tokenFor("octo-maintainer")}`, "content-type": "application/json" },
      body: JSON.stringify({ body: `${marker}\nforged` }),
    });
    expect(await t.github.findComment({ issue: 1, marker, author: ["naruto[bot]", WORKFLOW_BOT] })).toBeNull();
  });
});
