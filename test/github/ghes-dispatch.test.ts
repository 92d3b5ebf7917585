/**
 * Dispatching on a GitHub Enterprise Server that does not know `return_run_details` (3.20 and
 * older answer the field with 400, cli/cli#12672): the port dispatches once more without it,
 * gets the run as a 204 gives it (no id), and leaves the field out of every later dispatch of
 * the ports that share its memory (the App's ports of one installation and repository).
 */
import { afterEach, describe, expect, it } from "vitest";
import { createDispatchMemory, createGitHub, type GitHubPort } from "../../src/github/index.ts";
import { startFakeGitHub, type FakeGitHub } from "../support/fake-github/index.ts";
import { FAKE_WORKFLOW } from "./target.ts";

const FAST = { retry: { retries: 1, baseDelayMs: 1 }, throttle: { writeIntervalMs: 0, notificationIntervalMs: 0 }, sleep: () => Promise.resolve() } as const;
let fake: FakeGitHub | null = null;

async function start(
  ghesVersion?: string,
): Promise<{ fake: FakeGitHub; token: string; port: (memory?: ReturnType<typeof createDispatchMemory>) => GitHubPort }> {
  fake = await startFakeGitHub(ghesVersion === undefined ? {} : { ghesVersion });
  const started = fake;
  await started.createRepo({ owner: "acme", name: "demo", files: { "README.md": "# demo\n", ".github/workflows/naruto.yml": FAKE_WORKFLOW } });
  const { token } = started.issueAppToken({ owner: "acme", permissions: { actions: "write" } });
  const port = (memory?: ReturnType<typeof createDispatchMemory>) =>
    createGitHub({
      token,
      repo: { owner: "acme", repo: "demo" },
      baseUrl: started.apiUrl,
      userAgent: "naruto-test",
      ...FAST,
      ...(memory ? { dispatch: memory } : {}),
    });
  return { fake: started, token, port };
}

const dispatches = (f: FakeGitHub) => f.requests.filter((r) => r.operation === "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches");

afterEach(async () => {
  fake?.assertNoViolations();
  await fake?.close();
  fake = null;
});

describe("dispatch on a server without return_run_details", () => {
  it("dispatches once more without the field, and the shared memory leaves it out afterwards", async () => {
    const { fake: f, port } = await start("3.20");
    const memory = createDispatchMemory();
    const first = await port(memory).dispatchWorkflow({ workflow: "naruto.yml", ref: "main", inputs: { mission: "m-ghes1" } });
    expect(first).toEqual({ runId: null, runUrl: null });
    expect(dispatches(f).map((r) => [r.status, (r.body as Record<string, unknown>)["return_run_details"] ?? null])).toEqual([
      [400, true],
      [204, null],
    ]);
    expect(f.dispatches.map((d) => d.inputs["mission"])).toEqual(["m-ghes1"]);

    // Another port of the same installation and repository (the App's next webhook).
    await port(memory).dispatchWorkflow({ workflow: "naruto.yml", ref: "main", inputs: { mission: "m-ghes2" } });
    expect(
      dispatches(f)
        .slice(2)
        .map((r) => [r.status, (r.body as Record<string, unknown>)["return_run_details"] ?? null]),
    ).toEqual([[204, null]]);
    expect(f.dispatches.map((d) => d.inputs["mission"])).toEqual(["m-ghes1", "m-ghes2"]);
  });

  it("still asks for the run on github.com, and gets it", async () => {
    const { fake: f, port } = await start();
    const result = await port().dispatchWorkflow({ workflow: "naruto.yml", ref: "main", inputs: { mission: "m-dotcom" } });
    expect(result.runId).toBe(f.dispatches[0]?.runId);
    expect(dispatches(f).map((r) => r.status)).toEqual([200]);
  });

  it("does not dispatch again for any other refusal", async () => {
    const { fake: f, port } = await start("3.20");
    await expect(port().dispatchWorkflow({ workflow: "naruto.yml", ref: "no-such-branch", inputs: { mission: "m-x" } })).rejects.toThrow(
      /No ref found for: no-such-branch/,
    );
    // The 400 named the field: once more without it, which GitHub then refuses for the ref (422), and no third time.
    expect(dispatches(f).map((r) => r.status)).toEqual([400, 422]);
    expect(f.dispatches).toEqual([]);
  });

  it("does not leave the field out after a refusal that does not name it", async () => {
    const { fake: f, port } = await start();
    const memory = createDispatchMemory();
    await expect(port(memory).dispatchWorkflow({ workflow: "naruto.yml", ref: "no-such-branch", inputs: { mission: "m-x" } })).rejects.toThrow(/No ref found/);
    expect(memory.runDetails).toBe(true);
    expect(dispatches(f).map((r) => r.status)).toEqual([422]);
  });
});
