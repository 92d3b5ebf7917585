/**
 * Jobs of one run that do not need each other run side by side, as on GitHub (naruto's watch job
 * reads the jobs of its run while the work legs go): `waiter` ends only once `maker`, which it
 * does not need, has written a file; `after` needs both and sees both done. One at a time in the
 * file's order, `waiter` would give up and fail.
 */
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeGitHub, type FakeGitHub } from "../fake-github/index.ts";
import { createActionsSimulator, formatRun, runUntilQuiet, type ActionsSimulator } from "./index.ts";

let fake: FakeGitHub;
let sim: ActionsSimulator;
let shared: string;
let dispatcher: string;

const workflow = (dir: string) => `name: side
on:
  workflow_dispatch:
jobs:
  waiter:
    runs-on: ubuntu-latest
    steps:
      - run: for i in $(seq 1 100); do [ -e ${dir}/made ] && exit 0; sleep 0.1; done; echo "maker never ran beside me" >&2; exit 1
  maker:
    runs-on: ubuntu-latest
    steps:
      - run: sleep 0.5 && touch ${dir}/made
  after:
    needs: [waiter, maker]
    runs-on: ubuntu-latest
    steps:
      - run: echo "\${{ needs.waiter.result }} \${{ needs.maker.result }}"
`;

beforeAll(async () => {
  shared = await mkdtemp(join(tmpdir(), "sim-side-"));
  await chmod(shared, 0o777);
  fake = await startFakeGitHub();
  dispatcher = fake.addUser("octo-maintainer", { permission: "write" }).token;
  await fake.createRepo({ owner: "acme", name: "side", files: { ".github/workflows/naruto.yml": workflow(shared) } });
  sim = await createActionsSimulator({ fake, repo: "acme/side", actionDir: fileURLToPath(new URL("../../../", import.meta.url)), sharedDirs: [shared] });
});
afterAll(async () => {
  await sim?.close();
  await fake?.close();
  await rm(shared, { recursive: true, force: true });
});

describe("jobs of one run", () => {
  it("run side by side unless one needs the other; results keep the file's order", async () => {
    const response = await fetch(`${fake.apiUrl}/repos/acme/side/actions/workflows/naruto.yml/dispatches`, {
      method: "POST",
      headers: { authorization: `token ${dispatcher}`, "content-type": "application/json" },
      body: JSON.stringify({ ref: "main" }),
    });
    expect(response.status).toBe(204);
    const [run] = await runUntilQuiet({ fake, simulator: sim });
    expect(
      run?.jobs.map((j) => `${j.job}:${j.result}`),
      run === undefined ? "no run" : formatRun(run, { withLogs: true }),
    ).toEqual(["waiter:success", "maker:success", "after:success"]);
    expect(run?.jobs[2]?.steps[0]?.log).toContain("success success");
  });
});
