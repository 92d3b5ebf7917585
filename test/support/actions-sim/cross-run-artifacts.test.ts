/**
 * actions/download-artifact@v4 with `run-id` and `github-token`, as an integrate run uses it
 * (templates/naruto.yml): the artifacts of another run of the repository, and only with a token
 * that may read Actions (`actions: read`), as on GitHub.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeGitHub, type FakeGitHub } from "../fake-github/index.ts";
import { createActionsSimulator, formatRun, runUntilQuiet, type ActionsSimulator, type RunResult } from "./index.ts";

const WORKFLOW = `name: cross
on:
  workflow_dispatch:
    inputs:
      from:
        type: string
        default: ""
permissions: {}
jobs:
  up:
    if: inputs.from == ''
    runs-on: ubuntu-latest
    steps:
      - run: mkdir -p out && echo "from the first run" > out/a.txt && echo other > b.txt
      - uses: actions/upload-artifact@v6
        with:
          name: naruto-work-a-1
          path: out
      - uses: actions/upload-artifact@v6
        with:
          name: naruto-queue
          path: b.txt
  down:
    if: inputs.from != ''
    runs-on: ubuntu-latest
    permissions:
      actions: read
    steps:
      - uses: actions/download-artifact@v7
        with:
          path: got
          run-id: \${{ inputs.from }}
          github-token: \${{ github.token }}
          pattern: naruto-work-*
      - run: cat got/naruto-work-a-1/a.txt && test ! -e got/naruto-queue
  denied:
    if: inputs.from != ''
    runs-on: ubuntu-latest
    permissions:
      contents: read
    steps:
      - uses: actions/download-artifact@v7
        with:
          path: got
          run-id: \${{ inputs.from }}
          github-token: \${{ github.token }}
  own:
    if: inputs.from != ''
    runs-on: ubuntu-latest
    steps:
      - uses: actions/download-artifact@v7
        with:
          path: got
          run-id: \${{ inputs.from }}
      - run: test ! -e got/naruto-work-a-1
`;

let fake: FakeGitHub;
let sim: ActionsSimulator;
let actionDir: string;
let maintainer: string;

async function dispatch(inputs: Record<string, string>): Promise<RunResult> {
  const response = await fetch(`${fake.apiUrl}/repos/acme/cross/actions/workflows/cross.yml/dispatches`, {
    method: "POST",
    headers: { authorization: `token ${maintainer}`, "content-type": "application/json" },
    body: JSON.stringify({ ref: "main", inputs }),
  });
  expect(response.status).toBe(204);
  const runs = await runUntilQuiet({ fake, simulator: sim });
  expect(runs).toHaveLength(1);
  return runs[0] as RunResult;
}

beforeAll(async () => {
  fake = await startFakeGitHub();
  maintainer = fake.addUser("octo-maintainer", { permission: "write" }).token;
  await fake.createRepo({ owner: "acme", name: "cross", files: { "README.md": "# cross\n", ".github/workflows/cross.yml": WORKFLOW } });
  actionDir = await mkdtemp(join(tmpdir(), "sim-cross-"));
  sim = await createActionsSimulator({ fake, repo: "acme/cross", actionDir, workflowPath: ".github/workflows/cross.yml" });
});
afterAll(async () => {
  await sim?.close();
  await fake?.close();
  await rm(actionDir, { recursive: true, force: true });
});

describe("download-artifact from another run", () => {
  it("downloads that run's artifacts with a token that may read Actions, and refuses one that may not", async () => {
    const first = await dispatch({});
    expect(first.conclusion, formatRun(first, { withLogs: true })).toBe("success");
    const second = await dispatch({ from: String(first.id) });
    const job = (name: string) => second.jobs.find((j) => j.name === name);
    expect(job("down")?.result, formatRun(second, { withLogs: true })).toBe("success");
    expect(job("down")?.steps.map((s) => s.log).join("")).toContain("from the first run");
    expect(job("denied")?.result).toBe("failure");
    expect(job("denied")?.steps[0]?.log).toMatch(/\((403|404)\)/);
    // Without a token, run-id does not count: this run's own artifacts (none).
    expect(job("own")?.result, formatRun(second, { withLogs: true })).toBe("success");
  });
});
