/**
 * Per-agent limits (issue 31, docs/architecture.md): `naruto run` as a real process, with agents that
 * take what the machine has — a fork bomb, a memory hog, a file that never ends — beside an honest
 * bystander. Each is stopped by its limit and its attempt says which; the bystander integrates.
 * As root, and as an ordinary user (`setpriv`). The attacks are bounded (400 processes, 512 MiB,
 * 256 MiB) so that on a machine without limits they end by themselves.
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Mission } from "../../src/mission/document.ts";
import { processesWithEnv } from "../../src/sandbox/leftovers.ts";
import { fakeAgentCommand } from "../support/agents/index.ts";
import { createTestRepo, type TestRepo } from "../support/git-repo.ts";
import { bwrapSkipReason } from "../support/sandbox.ts";
import { FAKE_AGENTS_DIR, itemOf } from "./local-fixture.ts";
import { startNaruto, waitForMission } from "./runner-process.ts";

const NOBODY = { uid: 65534, gid: 65534 } as const;
const asRoot = process.getuid?.() === 0;
const setprivWorks = asRoot && spawnSync("setpriv", ["--version"]).status === 0;

beforeAll(() => {
  // The CLI's bundle is built before an ordinary user runs it.
  spawnSync(process.execPath, [new URL("../../bin/naruto.js", import.meta.url).pathname, "--version"]);
});

interface Setup {
  readonly repo: TestRepo;
  readonly home: string;
  remove(): Promise<void>;
}

export const LIMITS = { agent_processes: 64, agent_memory: "128MiB", agent_file_size: "16MiB", max_file_size: "8MiB" } as const;

async function setup(user: typeof NOBODY | null, attacks: readonly string[]): Promise<Setup> {
  const repo = await createTestRepo({ "README.md": "# app\n" });
  const home = await mkdtemp(join(tmpdir(), "naruto-home-"));
  const read = [FAKE_AGENTS_DIR];
  const limits = fakeAgentCommand("hostile-limits");
  const agents = {
    default: { command: fakeAgentCommand("edit"), read },
    "fork-bomb": { command: `${limits} fork-bomb 400`, read },
    "memory-hog": { command: `${limits} memory-hog 512`, read },
    // 640 MiB a second: from its limit to the RLIMIT_DATA backstop at twice it in 200 ms, which a
    // late watch (a loaded machine) can miss: the backstop ends it, and that is the memory limit too.
    "fast-memory-hog": { command: `${limits} memory-hog 512 640`, read },
    // The edit first, then a file that never ends (256 MiB where nothing stops it).
    "huge-file": { command: `${fakeAgentCommand("edit")} && exec dd if=/dev/zero of="$HOME/huge.bin" bs=1M count=256 status=none`, read },
  };
  const config = { version: 1, agents, limits: { max_parallel: 4, max_attempts: 1, item_timeout: "2m", ...LIMITS } };
  await repo.commit("naruto config", { ".github/naruto.yml": JSON.stringify(config) });
  const items = [
    ...attacks.map((a) => ({ id: a, title: a, agent: a, writes: [`src/${a}/`] })),
    { id: "bystander", title: "honest work", writes: ["src/bystander/"] },
  ];
  await writeFile(join(repo.dir, ".git", "plan.json"), JSON.stringify({ version: 1, title: "hostile limits", items }));
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
  const env = { HOME: s.home, XDG_CACHE_HOME: join(s.home, ".cache") };
  const wrap = (argv: string[]) => (user ? ["setpriv", `--reuid=${user.uid}`, `--regid=${user.gid}`, "--clear-groups", "--", ...argv] : argv);
  const exited = await startNaruto(s.repo.dir, ["run", "--plan", ".git/plan.json", "--json"], env, { wrap }).exited;
  // Read back as root: git refuses a repository another user owns.
  if (user) spawnSync("chown", ["-R", "0:0", s.repo.dir]);
  return waitForMission(s.repo, () => true, 10_000).catch((e: unknown) => {
    throw new Error(`${String(e)}\nnaruto: ${exited.code ?? exited.signal} ${exited.stderr}`);
  });
}

const users: [string, typeof NOBODY | null][] = [["root", null], ...(setprivWorks ? ([["an ordinary user", NOBODY]] as [string, typeof NOBODY][]) : [])];

describe.skipIf(bwrapSkipReason !== null)(`per-agent limits in the sandbox${bwrapSkipReason ? ` (skipped: ${bwrapSkipReason})` : ""}`, () => {
  it.each(users)("stops a fork bomb, a memory hog and a file that never ends, each by its limit and saying which, as %s", async (_who, user) => {
    const s = await setup(user, ["fork-bomb", "memory-hog", "huge-file"]);
    try {
      const m = await run(s, user);
      const reason = (id: string) => itemOf(m, id).reason ?? "";
      if (process.env.LIMITS_DEBUG) for (const i of m.items) console.log(_who, i.id, i.status, i.reason?.split("\n")[0]);
      expect(itemOf(m, "fork-bomb").status).toBe("failed");
      expect(reason("fork-bomb")).toMatch(/^the agent reached its process limit \(limits\.agent_processes: 64; /);
      expect(itemOf(m, "memory-hog").status).toBe("failed");
      expect(reason("memory-hog")).toMatch(/^the agent reached its memory limit \(limits\.agent_memory: 128MiB; /);
      expect(itemOf(m, "huge-file").status).toBe("failed");
      expect(reason("huge-file")).toMatch(/^the agent reached its file size limit \(limits\.agent_file_size: 16MiB\)/);
      expect(itemOf(m, "bystander").status).toBe("integrated");
      expect(await processesWithEnv(`NARUTO_MISSION=${m.id}`)).toEqual([]);
    } finally {
      await s.remove();
    }
  });

  it.each(users)("names the memory limit of a hog that grows at 640 MiB/s, past the watch to its RLIMIT_DATA ceiling, as %s", async (_who, user) => {
    const s = await setup(user, ["fast-memory-hog"]);
    try {
      const m = await run(s, user);
      if (process.env.LIMITS_DEBUG) for (const i of m.items) console.log(_who, i.id, i.status, i.reason?.split("\n")[0]);
      expect(itemOf(m, "fast-memory-hog").status).toBe("failed");
      expect(itemOf(m, "fast-memory-hog").reason ?? "").toMatch(/^the agent reached its memory limit \(limits\.agent_memory: 128MiB; /);
      expect(itemOf(m, "bystander").status).toBe("integrated");
    } finally {
      await s.remove();
    }
  });
});
