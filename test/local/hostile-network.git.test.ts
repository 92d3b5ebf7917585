/**
 * The sandbox's network (issue 31, docs/architecture.md): `naruto run` as a real process in a stand-in
 * network (test/support/stand-in-network.ts), a hostile agent knocking on every door of the host
 * it runs on. By default the agent reaches its model API (the stand-in "internet", by name through
 * the resolver) and nothing of the host: not its loopback, not an abstract unix socket, not a
 * service listening on the host's own address, not the LAN, not the cloud's metadata service.
 * `network: false` reaches nothing at all; `network: host` is the host's network, chosen.
 * As root, and as an ordinary user (`setpriv`).
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Mission } from "../../src/mission/document.ts";
import { fakeAgentCommand } from "../support/agents/index.ts";
import { createTestRepo, type TestRepo } from "../support/git-repo.ts";
import { bwrapSkipReason } from "../support/sandbox.ts";
import { createStandInNetwork, STAND_IN, standInNetworkSkipReason, type StandInNetwork } from "../support/stand-in-network.ts";
import { FAKE_AGENTS_DIR, itemOf } from "./local-fixture.ts";
import { startNaruto, waitForMission } from "./runner-process.ts";

const NOBODY = { uid: 65534, gid: 65534 } as const;
const skip = bwrapSkipReason ?? standInNetworkSkipReason;
const setprivWorks = spawnSync("setpriv", ["--version"]).status === 0;

let net: StandInNetwork;
beforeAll(async () => {
  if (skip !== null) return;
  net = await createStandInNetwork();
  // The CLI's bundle is built (as root) before an ordinary user runs it.
  spawnSync(process.execPath, [new URL("../../bin/naruto.js", import.meta.url).pathname, "--version"]);
});
afterAll(async () => net?.remove());

interface Setup {
  readonly repo: TestRepo;
  readonly home: string;
  remove(): Promise<void>;
}

/** A repository whose items knock on the doors with each network setting, owned by `user` when given. */
async function setup(user: typeof NOBODY | null): Promise<Setup> {
  const repo = await createTestRepo({ "README.md": "# app\n" });
  const home = await mkdtemp(join(tmpdir(), "naruto-home-"));
  const knock = { command: fakeAgentCommand("hostile-net"), read: [FAKE_AGENTS_DIR] };
  // An agent whose model endpoint is on this machine: its variable names the host's loopback port.
  const endpoint = { ...knock, env: ["ANTHROPIC_BASE_URL"] };
  const agents = { default: knock, "net-off": { ...knock, network: false }, "net-host": { ...knock, network: "host" }, "net-endpoint": endpoint };
  await repo.commit("naruto config", {
    ".github/naruto.yml": JSON.stringify({ version: 1, agents, limits: { max_parallel: 3, max_attempts: 1, item_timeout: "2m" } }),
  });
  const targets = {
    modelApi: STAND_IN.modelApi,
    dns: STAND_IN.modelApiName,
    lan: STAND_IN.lan,
    metadata: STAND_IN.metadata,
    hostAddress: STAND_IN.hostAddress,
    loopback: STAND_IN.loopbackPort,
    abstract: net.abstract,
  };
  const prompt = `net-targets: ${JSON.stringify(targets)}\n`;
  const items = [
    { id: "knock", title: "knock", writes: ["src/knock/"], prompt },
    { id: "knock-off", title: "knock without a network", agent: "net-off", writes: ["src/knock-off/"], prompt },
    { id: "knock-host", title: "knock on the host's network", agent: "net-host", writes: ["src/knock-host/"], prompt },
    { id: "knock-endpoint", title: "knock with a loopback endpoint", agent: "net-endpoint", writes: ["src/knock-endpoint/"], prompt },
  ];
  await writeFile(join(repo.dir, ".git", "plan.json"), JSON.stringify({ version: 1, title: "doors", items }));
  if (user) spawnSync("chown", ["-R", `${user.uid}:${user.gid}`, repo.dir, home]);
  return {
    repo,
    home,
    remove: async () => {
      await repo.remove();
      await rm(home, { recursive: true, force: true });
    },
  };
}

async function run(s: Setup, user: typeof NOBODY | null): Promise<Mission> {
  const env = { HOME: s.home, XDG_CACHE_HOME: join(s.home, ".cache"), ANTHROPIC_BASE_URL: `http://127.0.0.1:${STAND_IN.loopbackPort}` };
  const start = () => startNaruto(s.repo.dir, ["run", "--plan", ".git/plan.json", "--json"], env, { wrap: (argv) => net.inHost(argv, user ?? undefined) });
  const exited = await start().exited;
  // Read back as root: git refuses a repository another user owns.
  if (user) spawnSync("chown", ["-R", "0:0", s.repo.dir]);
  return waitForMission(s.repo, () => true, 10_000).catch((e: unknown) => {
    throw new Error(`${String(e)}\nnaruto: ${exited.code ?? exited.signal} ${exited.stderr}`);
  });
}

/** What the agent of `item` reached, by door: `ok:<what answered>` or an error code. */
function doors(m: Mission, item: string): Record<string, string> {
  const summary = itemOf(m, item).attempts[0]?.summary ?? "";
  const found = /^net: (.*): changed /.exec(summary);
  if (!found?.[1]) throw new Error(`no doors in ${JSON.stringify(summary)} (item ${JSON.stringify(itemOf(m, item))})`);
  return Object.fromEntries(found[1].split(" ").map((pair) => pair.split("=") as [string, string]));
}

const users: [string, typeof NOBODY | null][] = [["root", null], ...(setprivWorks ? ([["an ordinary user", NOBODY]] as [string, typeof NOBODY][]) : [])];

describe.skipIf(skip !== null)(`an agent's network${skip ? ` (skipped: ${skip})` : ""}`, () => {
  it.each(users)("reaches its model API but not the host's loopback, abstract sockets, own address, LAN or metadata service, as %s", async (_who, user) => {
    const s = await setup(user);
    try {
      const m = await run(s, user);
      const knock = doors(m, "knock");
      expect(knock.modelApi).toBe("ok:model-api");
      expect(knock.dns).toBe(STAND_IN.modelApi.split(":")[0]);
      for (const door of ["loopback", "abstract", "hostAddress", "lan", "metadata"]) expect(knock[door], door).not.toMatch(/^ok/);
      expect(m.sandbox).toMatch(/^bwrap [\d.]+$/);

      // No network at all, as chosen.
      const off = doors(m, "knock-off");
      for (const door of ["modelApi", "loopback", "abstract", "hostAddress", "lan", "metadata"]) expect(off[door], door).not.toMatch(/^ok/);
      expect(off.dns).not.toMatch(/^\d/);

      // The host's network, as chosen: everything the host reaches.
      const host = doors(m, "knock-host");
      expect(host).toMatchObject({
        modelApi: "ok:model-api",
        loopback: "ok:host-loopback",
        abstract: "ok:host-abstract",
        hostAddress: "ok:host-any-address",
        lan: "ok:lan-service",
      });
      // The endpoint its variable names, carried in: that loopback port alone, nothing else of the host.
      const endpoint = doors(m, "knock-endpoint");
      expect(endpoint.loopback).toBe("ok:host-loopback");
      expect(endpoint.modelApi).toBe("ok:model-api");
      for (const door of ["abstract", "hostAddress", "lan", "metadata"]) expect(endpoint[door], door).not.toMatch(/^ok/);
      expect(m.items.map((i) => i.status)).toEqual(["integrated", "integrated", "integrated", "integrated"]);
    } finally {
      await s.remove();
    }
  });
});
