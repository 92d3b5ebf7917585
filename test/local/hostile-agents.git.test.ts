/**
 * Hostile agents on a local run (issue 11; docs/architecture.md), as a user would meet them: `naruto run`
 * as a real process on a real repository, each attack a real agent process
 * (test/support/agents/hostile-local.mjs), beside an honest bystander.
 *
 * With the sandbox, every attack is contained: the user's refs, HEAD, config, hooks, info, index
 * and work tree, and their home's start-up files, are byte-identical before and after; nothing of
 * naruto's environment is in reach; nothing outlives the run; the mission approves.
 *
 * Without it (`sandbox: none`), what took effect is reported by name — the tamper record's
 * findings, each attempt that ran meanwhile `tampered` — naruto's own queue is put back, and the
 * verdict blocks. What no check can see without a sandbox (a read of another process's
 * environment, a kill of naruto) is shown to work: that is what the sandbox is for.
 */
import { randomBytes } from "node:crypto";
import { lstat, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Mission } from "../../src/mission/document.ts";
import { processesWithEnv } from "../../src/sandbox/leftovers.ts";
import { fakeAgentCommand } from "../support/agents/index.ts";
import { createTestRepo, type TestRepo } from "../support/git-repo.ts";
import { bwrapSkipReason } from "../support/sandbox.ts";
import { snapshotCheckout } from "../support/worker-fixture.ts";
import { fakeCli } from "./cli-io.ts";
import { main } from "../../src/cli/main.ts";
import { FAKE_AGENTS_DIR, itemOf, missionWorkDirs } from "./local-fixture.ts";
import { startNaruto, waitForMission } from "./runner-process.ts";

const HOSTILE = fakeAgentCommand("hostile-local");
const ATTACKS = ["move-main", "hooks", "move-queue", "home", "dot-dot", "environ", "sibling", "dotenv", "linger"] as const;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

interface Setup {
  readonly repo: TestRepo;
  readonly home: string;
  readonly canary: string;
  readonly token: string;
}

/** A repository whose config runs each attack as an agent profile, a home of its own, and an untracked `.env` with a token. */
async function setup(mode: "none" | "auto", attacks: readonly string[]): Promise<Setup> {
  const repo = await createTestRepo({ "README.md": "# app\n", "src/keep.txt": "keep\n" });
  const home = await mkdtemp(join(tmpdir(), "naruto-home-"));
  cleanups.push(
    () => repo.remove(),
    () => rm(home, { recursive: true, force: true }),
  );
  await writeFile(join(home, ".bashrc"), "# the user's\n");
  const agents: Record<string, unknown> = { default: { command: fakeAgentCommand("edit"), read: [FAKE_AGENTS_DIR] } };
  for (const a of attacks) agents[`hostile-${a}`] = { command: `${HOSTILE} ${a}`, read: [FAKE_AGENTS_DIR] };
  const config = { version: 1, sandbox: mode, agents, limits: { max_parallel: 16, max_attempts: 1, item_timeout: "2m" } };
  await repo.commit("naruto config", { ".github/naruto.yml": JSON.stringify(config) });
  const token = `ghp_${randomBytes(18).toString("hex")}`;
  // The user's untracked secrets, beside the checkout (what Gemini CLI walked up to).
  await writeFile(join(repo.dir, ".env"), `GITHUB_TOKEN=${token}\n`);
  const items = [
    ...attacks.map((a) => ({
      id: `atk-${a}`,
      title: a,
      agent: `hostile-${a}`,
      writes: [`src/atk-${a}/`],
      prompt: `hostile-repo: ${repo.dir}\nhostile-home: ${home}\n`,
    })),
    { id: "bystander", title: "honest work", writes: ["src/bystander/"] },
  ];
  await writeFile(join(repo.dir, ".git", "plan.json"), JSON.stringify({ version: 1, title: "hostile agents", items }));
  return { repo, home, canary: `canary-${randomBytes(6).toString("hex")}`, token };
}

/** Everything of the user's an agent could touch: the checkout, refs (naruto's own aside), HEAD, git config, hooks, info, home files. */
async function userState(s: Setup): Promise<Record<string, string>> {
  const out: Record<string, string> = { ...(await snapshotCheckout(s.repo.dir)) };
  const refs = await s.repo.run("for-each-ref", "--format=%(objectname) %(refname)");
  out.refs = refs
    .split("\n")
    .filter((l) => !/ refs\/(heads\/)?naruto\//.test(l))
    .join("\n");
  for (const dir of ["hooks", "info"]) {
    for (const name of await readdir(join(s.repo.dir, ".git", dir), { recursive: true })) {
      const path = join(s.repo.dir, ".git", dir, name);
      if ((await lstat(path)).isFile()) out[`.git/${dir}/${name}`] = (await readFile(path)).toString("hex");
    }
  }
  out[".git/config"] = await readFile(join(s.repo.dir, ".git", "config"), "utf8");
  for (const name of [".bashrc", ".gitconfig"]) out[`~/${name}`] = await readFile(join(s.home, name), "utf8").catch(() => "(absent)");
  return out;
}

async function run(s: Setup): Promise<{ mission: Mission; code: number | null; stderr: string }> {
  const runner = startNaruto(s.repo.dir, ["run", "--plan", ".git/plan.json", "--json"], { HOME: s.home, NARUTO_TEST_CANARY: s.canary });
  const exited = await runner.exited;
  return { mission: await waitForMission(s.repo, () => true), code: exited.code, stderr: exited.stderr };
}

const summary = (m: Mission, id: string) => itemOf(m, id).attempts[0]?.summary ?? "";

describe.skipIf(bwrapSkipReason !== null)(`hostile agents in the bubblewrap sandbox${bwrapSkipReason ? ` (skipped: ${bwrapSkipReason})` : ""}`, () => {
  it("contains every attack: the user's repository, refs, config, hooks, HEAD, index, work tree and home are byte-identical", async () => {
    const s = await setup("auto", ATTACKS);
    const before = await userState(s);
    const { mission: m, code, stderr } = await run(s);

    expect(await userState(s)).toEqual(before);
    expect(m.sandbox).toMatch(/^bwrap /);
    for (const a of ATTACKS.filter((x) => x !== "linger" && x !== "sibling")) expect(summary(m, `atk-${a}`), a).toMatch(new RegExp(`^${a}: failed: `));
    // Its siblings' folders are not in its sandbox: it finds none of them.
    expect(summary(m, "atk-sibling")).toMatch(/^sibling: (failed: |did wrote into 0 sibling)/);
    expect(JSON.stringify(m)).not.toContain(s.canary);
    expect(JSON.stringify(m)).not.toContain(s.token);
    // The lingerer died with its sandbox; nothing of the mission runs any more.
    expect(await processesWithEnv(`NARUTO_MISSION=${m.id}`)).toEqual([]);
    // Nothing reached around the checks: the mission approves, the bystander's work is its own.
    expect(m.tampering).toEqual([]);
    expect(m.verdict?.verdict, stderr).toBe("approve");
    expect(code).toBe(0);
    expect(m.items.map((i) => i.status)).toEqual(m.items.map(() => "integrated"));
    const byFiles = await s.repo.run("ls-tree", "-r", "--name-only", `refs/heads/naruto/${m.id}`, "src/bystander");
    expect(byFiles).toBe("src/bystander/bystander.txt");
    expect(await missionWorkDirs(s.repo, m.id)).toEqual([]);
  });

  it("keeps naruto out of an agent's reach: it cannot kill it", async () => {
    const s = await setup("auto", ["kill"]);
    const { mission: m, code } = await run(s);
    expect(summary(m, "atk-kill")).toMatch(/^kill: failed: no naruto process in reach/);
    expect(code).toBe(0);
    expect(m.verdict?.verdict).toBe("approve");
  });
});

describe("hostile agents without a sandbox (sandbox: none)", () => {
  it("reports by name every change they made, puts naruto's queue back, fails every attempt that ran meanwhile, and blocks", async () => {
    const s = await setup("none", ATTACKS);
    const mainBefore = await s.repo.run("rev-parse", "refs/heads/main");
    const { mission: m, code } = await run(s);
    if (process.env.HOSTILE_DEBUG) console.log(await readFile(join(s.repo.dir, ".git", "naruto", "missions", m.id, "report.md"), "utf8"));

    const found = (what: string) => m.tampering.find((f) => f.what === what);
    // The user's ref, with its old value so it can be put back; naruto does not touch it.
    expect(found("refs/heads/main")).toMatchObject({ before: mainBefore, blame: "agents", action: null });
    expect(found("refs/heads/main")?.attempts).toContain("atk-move-main#1");
    for (const file of [".git/hooks/pre-commit", ".git/hooks/post-checkout", ".git/config", ".git/info/attributes", "~/.bashrc", "~/.gitconfig"]) {
      expect(found(file), file).toMatchObject({ blame: "agents" });
    }
    expect(found("work tree: README.md")).toMatchObject({ before: "clean", blame: "agents" });
    // naruto's own queue was moved by something else: put back, and the queue built on naruto's head only.
    const queue = found(`refs/heads/naruto/${m.id}`);
    expect(queue).toMatchObject({ blame: "not_naruto", action: expect.stringMatching(/^naruto put it back to [0-9a-f]{12}$/) });
    expect(await s.repo.run("merge-base", "--is-ancestor", mainBefore, `refs/heads/naruto/${m.id}`)).toBe("");
    // Every attempt that ran beside them is tampered: naruto cannot tell which agent did what.
    for (const item of m.items) expect(item.status, item.id).toBe("tampered");
    expect(itemOf(m, "atk-linger").reason).toContain("dropped naruto's tracking variable");
    expect(m.verdict?.verdict).toBe("block");
    expect(code).toBe(1);
    expect(await processesWithEnv(`NARUTO_MISSION=${m.id}`)).toEqual([]);
    // What no check sees without a sandbox: naruto's environment is readable. The user's
    // `.env` is not (the work directory is outside the repository).
    expect(summary(m, "atk-environ")).toBe(`environ: did found NARUTO_TEST_CANARY=${s.canary}: changed src/atk-environ/atk-environ.txt`);
    expect(summary(m, "atk-dotenv")).toMatch(/^dotenv: failed: no \.env with a token above the work directory/);
  });

  it("can be killed by an agent; resume then finishes the mission and keeps what was done", async () => {
    const s = await setup("none", ["kill"]);
    const runner = startNaruto(s.repo.dir, ["run", "--plan", ".git/plan.json", "--json"], { HOME: s.home });
    expect((await runner.exited).signal).toBe("SIGKILL");
    const stopped = await waitForMission(s.repo, () => true);
    const cli = fakeCli(s.repo.dir);
    await main(["resume", stopped.id, "--json"], cli.io);
    const m = await waitForMission(s.repo, () => true);
    expect(m.status).toBe("done");
    expect(itemOf(m, "atk-kill").attempts[0]?.reason ?? "").toMatch(/^the runner stopped while the agent ran/);
  });
});
