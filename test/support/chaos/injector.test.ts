/**
 * The campaign's injector: the same seed gives the same faults for the same requests, faults land
 * at about their rates, git's protocol is left alone, and through the fake GitHub a decided fault
 * answers the request as a queued one would (a 502 after the effect: the comment is there).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeGitHub, type FakeGitHub } from "../fake-github/index.ts";
import { createInjector, DEFAULT_RATES } from "./injector.ts";

let fake: FakeGitHub;
beforeAll(async () => {
  fake = await startFakeGitHub();
  fake.addUser("octo-maintainer", { permission: "write" });
  await fake.createRepo({ owner: "acme", name: "demo", files: { "README.md": "# demo\n" }, issues: [{ title: "One" }] });
});
afterAll(async () => fake.close());

const ask = (injector: ReturnType<typeof createInjector>, n: number) =>
  Array.from({ length: n }, (_, i) =>
    JSON.stringify(
      i % 10 === 9 ? injector.dropWebhook("workflow_job") : injector.request({ method: "GET", path: `/repos/acme/demo/git/ref/heads%2F${i}`, git: false }),
    ),
  );

describe("the seeded injector", () => {
  it("replays the same faults for the same seed, and others for another", () => {
    const a = ask(createInjector(7), 2_000);
    expect(ask(createInjector(7), 2_000)).toEqual(a);
    expect(ask(createInjector(8), 2_000)).not.toEqual(a);
  });

  it("gives a request the same fault however other requests interleave with it", () => {
    const forward = createInjector(11);
    const backward = createInjector(11);
    const paths = Array.from({ length: 400 }, (_, i) => `/repos/acme/demo/issues/${i % 40}/comments`);
    const faultsOf = (injector: ReturnType<typeof createInjector>, order: readonly string[]) => {
      for (const path of order) injector.request({ method: "POST", path, git: false });
      return injector.log.map((f) => `${f.what} #${f.occurrence}: ${f.fault}`).sort();
    };
    // Each path's own requests keep their order; how the paths interleave is reversed.
    const a = faultsOf(forward, paths);
    expect(a.length).toBeGreaterThan(0);
    expect(faultsOf(backward, [...paths].reverse())).toEqual(a);
  });

  it("gives faults at about their rates, none to git, none once stopped", () => {
    const injector = createInjector(42);
    ask(injector, 20_000);
    const total =
      DEFAULT_RATES.serverErrorBefore + DEFAULT_RATES.serverErrorAfter + DEFAULT_RATES.secondaryLimit + DEFAULT_RATES.primaryLimit + DEFAULT_RATES.delay;
    const requests = injector.log.filter((f) => !f.what.startsWith("webhook")).length;
    const drops = injector.log.length - requests;
    expect(requests / 18_000).toBeGreaterThan(total * 0.7);
    expect(requests / 18_000).toBeLessThan(total * 1.3);
    expect(drops / 2_000).toBeGreaterThan(DEFAULT_RATES.dropWebhook * 0.6);
    expect(drops / 2_000).toBeLessThan(DEFAULT_RATES.dropWebhook * 1.4);
    expect(injector.request({ method: "POST", path: "/acme/demo.git/git-receive-pack", git: true })).toBeNull();
    injector.stop();
    expect(ask(injector, 500).every((r) => r === "null" || r === "false")).toBe(true);
  });

  it("answers through the fake GitHub as a queued fault would: a lost answer, the effect kept", async () => {
    fake.setFaultSource({
      request: ({ method }) => (method === "POST" ? { failure: { path: "", status: 502, after: true } } : null),
      dropWebhook: () => false,
    });
    try {
      const response = await fetch(`${fake.apiUrl}/repos/acme/demo/issues/1/comments`, {
        method: "POST",
        headers: { authorization: `token ${fake.tokenFor("octo-maintainer")}`, "content-type": "application/json" },
        body: JSON.stringify({ body: "kept" }),
      });
      expect(response.status).toBe(502);
    } finally {
      fake.setFaultSource(null);
    }
    expect([...fake.repo("acme/demo").comments.values()].map((c) => c.body)).toEqual(["kept"]);
  });
});
