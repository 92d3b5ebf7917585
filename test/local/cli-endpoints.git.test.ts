/**
 * An endpoint the agents' own network cannot carry (src/sandbox/reach.ts), as `naruto run` meets
 * it: the real `bin/naruto.js` as a process. The agent is given a unix-socket URL as its gateway;
 * no relay carries one into its network, so every attempt would fail before its agent starts.
 * The run is refused before any mission or branch is made, in the words the sandbox would have
 * failed each attempt with, and exits 2. Skipped, saying why, where the agents' own network does
 * not work (without it an agent has the host's network, and the URL needs no carrying).
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createTestRepo, type TestRepo } from "../support/git-repo.ts";
import { bwrapSandbox, userNetHere } from "../support/sandbox.ts";
import { expectRefused, naruto, refs } from "./naruto-process.ts";

const net = await userNetHere();
const skip = net.ok ? null : `the agents' own network does not work here (${net.reason}); .ci/run installs slirp4netns`;
const GATEWAY = "http+unix://%2Frun%2Fnaruto-test-gateway.sock/v1";
const PLAN = "version: 1\ntitle: t\nitems:\n  - { id: a, title: A, writes: [a.txt] }\n";

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((f) => f()));
});

async function repo(config: string): Promise<TestRepo> {
  const r = await createTestRepo({ "README.md": "# app\n", ".github/naruto.yml": config });
  cleanup.push(() => r.remove());
  await writeFile(join(r.dir, ".git", "plan.yml"), PLAN);
  return r;
}

describe.skipIf(skip !== null)(`an endpoint no relay can carry into the agents' own network${skip ? ` (skipped: ${skip})` : ""}`, () => {
  it("is refused before any mission or branch is made, in the sandbox's own words, exit 2", async () => {
    const r = await repo('version: 1\nagents:\n  default: { command: "printf x > a.txt", env: [GATEWAY_BASE_URL] }\n');
    const run = await naruto(r.dir, ["run", "--plan", ".git/plan.yml"], { GATEWAY_BASE_URL: GATEWAY });
    const words = await (await bwrapSandbox({ ownNetwork: true })).refusedReach([GATEWAY]);
    expect(words).toContain("is a unix socket of this machine");
    expectRefused(run, `the default agent: ${words}`, "Nothing was started.");
    expect(run.stderr).not.toMatch(/attempt \d/);
    expect(await refs(r.dir)).toBe("refs/heads/main");
  });

  it("runs as before when the profile chooses the host's network, which reaches the socket as it is", async () => {
    const r = await repo('version: 1\nagents:\n  default: { command: "printf x > a.txt", env: [GATEWAY_BASE_URL], network: host }\n');
    const run = await naruto(r.dir, ["run", "--plan", ".git/plan.yml"], { GATEWAY_BASE_URL: GATEWAY });
    expect(run.code, run.stderr).toBe(0);
    expect(await refs(r.dir)).toMatch(/refs\/heads\/naruto\/m-/);
  });
});
