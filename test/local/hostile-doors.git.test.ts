/**
 * Hostile agents against naruto's own doors (issue 31; docs/architecture.md, "naruto's own I/O is
 * outside the wall"), as a user would meet them: `naruto run` as a real process on a real
 * repository, with a HOME of the test's own, each attack a real agent process
 * (test/support/agents/hostile-doors.mjs) beside an honest bystander.
 *
 * - The files naruto writes and reads beside an agent (its prompt, its result, the item's
 *   verify's prompt and result) are no door: a link, a named pipe or a folder left where they
 *   were neither redirects naruto's writes nor stops naruto.
 * - What the sandbox shows of the machine for a CLI is the program, not the home it lies in.
 * - As root, the agent is not root: root-only files stay unreadable, and without a working
 *   sandbox `auto` refuses to run agents as root; an explicit `none` caps the verdict.
 *
 * Every run compares the user's HOME (its `~/.ssh` included), checkout, refs, git files and
 * object store before and after. As root (CI), the attacks run twice: as root, and as an
 * unprivileged user (`setpriv`) who owns the repository and HOME.
 */
import { randomBytes } from "node:crypto";
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { gitText, type Git } from "../../src/git/run-git.ts";
import type { Mission } from "../../src/mission/document.ts";
import { processesWithEnv } from "../../src/sandbox/leftovers.ts";
import { fakeAgentCommand } from "../support/agents/index.ts";
import type { TestRepo } from "../support/git-repo.ts";
import { anyOwnerGit, attackedUsers, giveTo, IS_ROOT, type RunAs, sizeOf, storedMission, userRepo, userRepoFiles } from "../support/hostile-user.ts";
import { bwrapSkipReason } from "../support/sandbox.ts";
import { FAKE_AGENTS_DIR, itemOf } from "./local-fixture.ts";
import { startNaruto } from "./runner-process.ts";

const DOORS = fakeAgentCommand("hostile-doors");
/** The unprivileged user the attacks also run as when the tests run as root. */
const USERS = attackedUsers({ uid: 4242, gid: 4242 });

const cleanups: (() => Promise<void>)[] = [];
vi.setConfig({ testTimeout: 240_000 });
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

beforeAll(async () => {
  // The build must be current before an unprivileged naruto starts: it could not rebuild it.
  await startNaruto(tmpdir(), ["--version"]).exited;
});

interface Setup {
  readonly repo: TestRepo;
  readonly home: string;
  /** Where work directories are made: `~/.cache/naruto` of the test's HOME. */
  readonly as: RunAs;
  /** Reads the repository as its owner would (root reads another user's repository with safe.directory). */
  readonly git: Git;
}

interface AttackItem {
  readonly id: string;
  readonly agent: string;
  readonly prompt?: string;
  readonly verify?: string;
}

/**
 * A repository whose config has the given agent profiles, a HOME of its own (with `~/.ssh`, a gh
 * token, a `.bashrc`), and a plan of the attack items beside an honest bystander. For `as`, the
 * repository and HOME belong to that user.
 */
async function setup(input: {
  agents: Record<string, unknown>;
  items: readonly AttackItem[];
  sandbox?: "auto" | "none";
  as?: RunAs;
  bin?: Record<string, string>;
}): Promise<Setup> {
  const { repo, home } = await userRepo(cleanups);
  await mkdir(join(home, ".ssh"), { mode: 0o700 });
  await writeFile(join(home, ".ssh", "authorized_keys"), "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIUserOwnKey user@laptop\n", { mode: 0o600 });
  await writeFile(join(home, ".ssh", "id_ed25519"), "-----BEGIN OPENSSH PRIVATE KEY-----\nnot a real key\n-----END OPENSSH PRIVATE KEY-----\n", {
    mode: 0o600,
  });
  await mkdir(join(home, ".config", "gh"), { recursive: true });
  await writeFile(join(home, ".config", "gh", "hosts.yml"), `github.com:\n    oauth_token: gho_${randomBytes(18).toString("hex")}\n`, { mode: 0o600 });
  await writeFile(join(home, ".bashrc"), "# the user's\n");
  for (const [name, text] of Object.entries(input.bin ?? {})) {
    await mkdir(join(home, "bin"), { recursive: true });
    await writeFile(join(home, "bin", name), text, { mode: 0o755 });
  }
  const agents = { default: { command: fakeAgentCommand("edit"), read: [FAKE_AGENTS_DIR] }, ...input.agents };
  const config = { version: 1, sandbox: input.sandbox ?? "auto", agents, limits: { max_parallel: 8, max_attempts: 1, item_timeout: "2m" } };
  await repo.commit("naruto config", { ".github/naruto.yml": JSON.stringify(config) });
  const items = [
    ...input.items.map((i) => ({
      id: i.id,
      title: i.id,
      agent: i.agent,
      writes: [`src/${i.id}/`],
      prompt: i.prompt ?? i.id,
      ...(i.verify ? { verify: i.verify } : {}),
    })),
    { id: "bystander", title: "honest work", writes: ["src/bystander/"], verify: "test -f src/bystander/bystander.txt" },
  ];
  await writeFile(join(repo.dir, ".git", "plan.json"), JSON.stringify({ version: 1, title: "hostile doors", items }));
  const as = input.as ?? null;
  if (as !== null) await giveTo(as, repo.dir, home);
  return { repo, home, as, git: anyOwnerGit() };
}

/** Every byte of the user's that an agent could touch: HOME (with `~/.ssh`), checkout, refs, git files; and the object store's size. */
async function userState(s: Setup): Promise<{ files: Record<string, string>; objects: number }> {
  const files = await userRepoFiles(s.git, s.repo.dir);
  for (const dir of ["hooks", "info"]) await tree(join(s.repo.dir, ".git", dir), `.git/${dir}`, files);
  // HOME, but the work root naruto makes under it (~/.cache/naruto).
  await tree(s.home, "~", files, (p) => p === "~/.cache");
  return { files, objects: await sizeOf(join(s.repo.dir, ".git", "objects")) };
}

async function tree(dir: string, label: string, into: Record<string, string>, skip: (p: string) => boolean = () => false): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name);
    const key = `${label}/${entry.name}`;
    if (skip(key)) continue;
    const info = await lstat(path);
    if (info.isSymbolicLink()) into[key] = `link:${await readlink(path)}`;
    else if (info.isDirectory()) await tree(path, key, into, skip);
    else into[key] = `${info.mode.toString(8)}:${info.isFile() ? (await readFile(path)).toString("hex") : "special"}`;
  }
}

/** `naruto run` of the plan as a process (as `as`, through setpriv), its HOME the test's; its mission as stored. */
async function run(s: Setup, env: Record<string, string> = {}): Promise<{ mission: Mission | null; code: number | null; stdout: string; stderr: string }> {
  const path = env.PATH ?? `${join(s.home, "bin")}:${process.env.PATH ?? ""}`;
  const vars = { HOME: s.home, XDG_CACHE_HOME: join(s.home, ".cache"), PATH: path, ...env };
  const args = ["run", "--plan", ".git/plan.json", "--json"];
  const runner = s.as === null ? startNaruto(s.repo.dir, args, vars) : startNaruto(s.repo.dir, args, vars, { as: s.as });
  // A run that hangs is stopped as a user would (SIGTERM), then for good: the test fails on its
  // state, never waits for ever, and leaves nothing running.
  let stopped = "";
  const term = setTimeout(() => ((stopped = "it hung: SIGTERM after 90 s"), runner.child.kill("SIGTERM")), 90_000);
  const kill = setTimeout(() => ((stopped += "; SIGTERM did not end it: SIGKILL 30 s later"), runner.child.kill("SIGKILL")), 120_000);
  const exited = await runner.exited.finally(() => {
    clearTimeout(term);
    clearTimeout(kill);
  });
  if (stopped !== "") exited.stderr += `\n(test) ${stopped}`;
  return { mission: await storedMission(s.git, s.repo.dir), ...exited };
}

const summary = (m: Mission, id: string) => itemOf(m, id).attempts[0]?.summary ?? "";

/** Expects the mission to have approved with every item integrated and nothing of it still running. */
async function expectApproved(result: Awaited<ReturnType<typeof run>>): Promise<Mission> {
  const m = result.mission;
  expect(m, result.stderr).not.toBeNull();
  if (m === null) throw new Error("no mission");
  expect(
    m.items.map((i) => [i.id, i.status, i.reason]),
    result.stderr,
  ).toEqual(m.items.map((i) => [i.id, "integrated", null]));
  expect(m.verdict?.verdict, result.stderr).toBe("approve");
  expect(result.code).toBe(0);
  expect(await processesWithEnv(`NARUTO_MISSION=${m.id}`)).toEqual([]);
  return m;
}

function expectUnchanged(before: Awaited<ReturnType<typeof userState>>, after: Awaited<ReturnType<typeof userState>>): void {
  expect(after.files).toEqual(before.files);
  // The mission's own commits are the only objects it adds (a few KiB here).
  expect(after.objects - before.objects).toBeLessThan(64 * 1024);
}

describe.skipIf(bwrapSkipReason !== null)(`naruto's own doors in the bubblewrap sandbox${bwrapSkipReason ? ` (skipped: ${bwrapSkipReason})` : ""}`, () => {
  describe.each(USERS)("naruto running as %s", (_who, as) => {
    it("writes nothing through a link an agent left where its files were: HOME, ~/.ssh and the checkout stay byte-identical", async () => {
      const s = await setup({
        as,
        agents: { link: { command: `${DOORS} prompt-link`, read: [FAKE_AGENTS_DIR] } },
        items: [
          { id: "to-ssh", agent: "link", prompt: "hostile-target: SSH", verify: "true" },
          { id: "to-readme", agent: "link", prompt: "hostile-target: README", verify: "true" },
        ],
      });
      // The targets, named in the plan now that the paths are known.
      const plan = (await readFile(join(s.repo.dir, ".git", "plan.json"), "utf8"))
        .replace("SSH", join(s.home, ".ssh", "authorized_keys"))
        .replace("README", join(s.repo.dir, "README.md"));
      await writeFile(join(s.repo.dir, ".git", "plan.json"), plan);
      const before = await userState(s);
      const result = await run(s);
      expectUnchanged(before, await userState(s));
      const m = await expectApproved(result);
      for (const id of ["to-ssh", "to-readme"]) expect(summary(m, id), id).toMatch(/^prompt-link: failed: /);
    });

    it("neither hangs nor fails on a named pipe or a folder where its files were", async () => {
      const s = await setup({
        as,
        agents: { fifo: { command: `${DOORS} prompt-fifo`, read: [FAKE_AGENTS_DIR] }, dirs: { command: `${DOORS} io-dirs`, read: [FAKE_AGENTS_DIR] } },
        items: [
          { id: "fifo", agent: "fifo", verify: "true" },
          { id: "dirs", agent: "dirs", verify: "true" },
        ],
      });
      const before = await userState(s);
      const result = await run(s);
      expectUnchanged(before, await userState(s));
      const m = await expectApproved(result);
      expect(summary(m, "fifo")).toMatch(/^prompt-fifo: failed: /);
      expect(summary(m, "dirs")).toMatch(/^io-dirs: failed: /);
    });
  });

  it("shows a CLI installed in ~/bin, not the home it lies in: no key, token or work directory of the user's is in reach", async () => {
    const s = await setup({
      // A preset whose CLI is a program in ~/bin (a native install copied there, a script).
      agents: { claude: { preset: "claude", read: [FAKE_AGENTS_DIR] } },
      bin: { claude: `#!/bin/sh\nexec ${DOORS} read\n` },
      items: [{ id: "home", agent: "claude", prompt: "hostile-read: SSH\nhostile-read: GH\nhostile-read: BASHRC" }],
    });
    const plan = (await readFile(join(s.repo.dir, ".git", "plan.json"), "utf8"))
      .replace("SSH", join(s.home, ".ssh", "id_ed25519"))
      .replace("GH", join(s.home, ".config", "gh", "hosts.yml"))
      .replace("BASHRC", join(s.home, ".bashrc"));
    await writeFile(join(s.repo.dir, ".git", "plan.json"), plan);
    const before = await userState(s);
    const result = await run(s);
    expectUnchanged(before, await userState(s));
    const m = await expectApproved(result);
    expect(summary(m, "home")).toMatch(/^read: failed: none of 3 files in reach/);
  });

  it.skipIf(!IS_ROOT)("as root, runs the agent as an unprivileged user: /etc/shadow and a root-only file stay unreadable", async () => {
    const secrets = await mkdtemp(join(tmpdir(), "naruto-root-only-"));
    cleanups.push(() => rm(secrets, { recursive: true, force: true }));
    await writeFile(join(secrets, "token"), "root's own\n", { mode: 0o600 });
    await chmod(secrets, 0o755);
    const s = await setup({
      agents: { reader: { command: `${DOORS} read`, read: [FAKE_AGENTS_DIR, secrets] } },
      items: [{ id: "shadow", agent: "reader", prompt: `hostile-read: /etc/shadow\nhostile-read: ${join(secrets, "token")}` }],
    });
    const before = await userState(s);
    const result = await run(s);
    expectUnchanged(before, await userState(s));
    const m = await expectApproved(result);
    expect(summary(m, "shadow")).toMatch(/^read: failed: none of 2 files in reach/);
  });
});

describe.skipIf(!IS_ROOT)("naruto as root without a working sandbox", () => {
  /** A `bwrap` that fails as an AppArmor rule makes it fail, first on PATH. */
  async function brokenBwrap(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), "naruto-broken-bwrap-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    await writeFile(
      join(dir, "bwrap"),
      '#!/bin/sh\nif [ "$1" = --version ]; then echo "bubblewrap 0.8.0"; exit 0; fi\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n',
      { mode: 0o755 },
    );
    return dir;
  }

  it("sandbox: auto refuses to start agents, says how to install bubblewrap or choose none, and makes nothing", async () => {
    const s = await setup({
      agents: { reader: { command: `${DOORS} read`, read: [FAKE_AGENTS_DIR] } },
      items: [{ id: "shadow", agent: "reader", prompt: "hostile-read: /etc/shadow" }],
    });
    const before = await userState(s);
    const result = await run(s, { PATH: `${await brokenBwrap()}:${process.env.PATH ?? ""}` });
    expectUnchanged(before, await userState(s));
    expect(result.mission).toBeNull();
    expect(result.code, result.stdout).toBe(2);
    expect(result.stderr).toContain("as root");
    expect(result.stderr).toContain("apt-get install bubblewrap");
    expect(result.stderr).toContain("sandbox: none");
    expect(await gitText(s.git, { args: ["for-each-ref", "refs/heads/naruto/"], cwd: s.repo.dir })).toBe("");
  });

  it("an explicit sandbox: none caps the verdict at request_changes, with the reason", async () => {
    const s = await setup({ sandbox: "none", agents: {}, items: [] });
    const result = await run(s);
    const m = result.mission;
    expect(m?.items.map((i) => i.status)).toEqual(["integrated"]);
    expect(m?.verdict?.verdict, result.stderr).toBe("request_changes");
    expect(m?.verdict?.findings.map((f) => f.rule)).toContain("agents_as_root");
    expect(result.code).toBe(1);
  });
});
