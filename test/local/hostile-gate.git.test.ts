/**
 * Hostile agents against the gate and the object store (issue 31, parts 7 and 8; README, "Security model"),
 * as a user would meet them: `naruto run` as a real process on a real repository, each attack a
 * real agent process (test/support/agents/hostile-gate.mjs) beside an honest bystander.
 *
 * - A file over `limits.max_file_size` (random, or a sparse 2 GiB one) is refused by name before
 *   anything hashes it: nothing of it reaches the user's object store, and naruto never reads it.
 * - A named pipe or a socket in the work tree is refused by name, not dropped, and blocks nothing,
 *   not even one where git opens a folder's `.gitignore`.
 * - Names that are one name on macOS or Windows (`README.md` and `readme.md`, `é.txt` in NFC and
 *   NFD) are refused by the gate, both names in the reason.
 * - A work directory reads only its start commit's objects: a secret of a commit the user reset
 *   away stays out of reach.
 *
 * Every run compares the user's checkout, refs and git files, the object store's size and its
 * unreachable objects before and after. As root (CI), the attacks run twice: as root, and as an
 * unprivileged user (`setpriv`) who owns the repository and HOME.
 */
import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { gitText, type Git } from "../../src/git/run-git.ts";
import type { Mission } from "../../src/mission/document.ts";
import { processesWithEnv } from "../../src/sandbox/leftovers.ts";
import { fakeAgentCommand } from "../support/agents/index.ts";
import type { TestRepo } from "../support/git-repo.ts";
import { anyOwnerGit, attackedUsers, chownTree, giveTo, type RunAs, sizeOf, storedMission, userRepo, userRepoFiles } from "../support/hostile-user.ts";
import { bwrapSkipReason } from "../support/sandbox.ts";
import { cliEnv } from "./cli-io.ts";
import { FAKE_AGENTS_DIR, itemOf } from "./local-fixture.ts";

const GATE = fakeAgentCommand("hostile-gate");
const BIN = fileURLToPath(new URL("../../bin/naruto.js", import.meta.url));
/** The unprivileged user the attacks also run as when the tests run as root. */
const USERS = attackedUsers({ uid: 4343, gid: 4343 });

const cleanups: (() => Promise<void>)[] = [];
vi.setConfig({ testTimeout: 300_000 });
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

beforeAll(async () => {
  // The build must be current before an unprivileged naruto starts: it could not rebuild it.
  await promisify(execFile)(process.execPath, [BIN, "--version"], { env: { ...process.env, ...cliEnv() } as NodeJS.ProcessEnv });
});

interface Setup {
  readonly repo: TestRepo;
  readonly home: string;
  readonly as: RunAs;
  /** Reads the repository whoever owns it (root reads another user's repository with safe.directory). */
  readonly git: Git;
  /** The secret of a commit the user reset away: unreachable, but still in the object store. */
  readonly secret: string;
}

const ATTACKS = [
  { id: "atk-big", attack: "big-file", prompt: "hostile-size-mb: 4" },
  { id: "atk-sparse", attack: "sparse-file", prompt: "hostile-size-gib: 2" },
  { id: "atk-special", attack: "special-files" },
  { id: "atk-collide", attack: "collide" },
  { id: "atk-objects", attack: "objects" },
] as const;

async function setup(as: RunAs): Promise<Setup> {
  const { repo, home } = await userRepo(cleanups);
  // A secret committed by mistake, then reset away: nothing reaches it, its objects stay.
  const secret = `SECRET-${randomBytes(12).toString("hex")}`;
  await repo.commit("oops", { ".env.production": `API_KEY=${secret}\n` });
  await repo.run("reset", "-q", "--hard", "HEAD~1");
  await repo.run("reflog", "expire", "--expire=now", "--all");
  const agents: Record<string, unknown> = { default: { command: fakeAgentCommand("edit"), read: [FAKE_AGENTS_DIR] } };
  for (const a of ATTACKS) agents[a.attack] = { command: `${GATE} ${a.attack}`, read: [FAKE_AGENTS_DIR] };
  // The sandbox's file size limit (1GiB by default) would stop a sparse file of more before the gate sees it: this is the gate's test, so at its largest (2GiB), with a 2 GiB file.
  const config = {
    version: 1,
    sandbox: "auto",
    agents,
    limits: { max_parallel: 3, max_attempts: 1, item_timeout: "3m", max_file_size: "1MiB", agent_file_size: "2GiB" },
  };
  await repo.commit("naruto config", { ".github/naruto.yml": JSON.stringify(config) });
  const items = [
    ...ATTACKS.map((a) => ({
      id: a.id,
      title: a.attack,
      agent: a.attack,
      writes: [`src/${a.id}/`],
      prompt: `${"prompt" in a ? a.prompt : a.attack}\nhostile-secret-prefix: SECRET-\n`,
    })),
    { id: "bystander", title: "honest work", writes: ["src/bystander/"] },
  ];
  await writeFile(join(repo.dir, ".git", "plan.json"), JSON.stringify({ version: 1, title: "hostile gate", items }));
  if (as !== null) await giveTo(as, repo.dir, home);
  return { repo, home, as, git: anyOwnerGit(), secret };
}

/** What an agent could change of the user's: checkout, refs (naruto's own aside), git files; the object store's size and unreachable objects. */
async function userState(s: Setup): Promise<{ files: Record<string, string>; objects: number; unreachable: string[] }> {
  const files = await userRepoFiles(s.git, s.repo.dir);
  const fsck = await gitText(s.git, { args: ["fsck", "--unreachable", "--no-reflogs", "--no-progress"], cwd: s.repo.dir });
  const unreachable = fsck
    .split("\n")
    .filter((l) => l.startsWith("unreachable "))
    .sort();
  return { files, objects: await sizeOf(join(s.repo.dir, ".git", "objects")), unreachable };
}

/** `naruto run` of the plan as a process (as `as`, through setpriv); the mission as stored. */
async function run(s: Setup): Promise<{ mission: Mission | null; code: number | null; stderr: string }> {
  const env = { ...cliEnv(), HOME: s.home, XDG_CACHE_HOME: join(s.home, ".cache") };
  const command = [process.execPath, BIN, "run", "--plan", ".git/plan.json", "--json"];
  const [file, ...argv] = s.as === null ? command : ["setpriv", `--reuid=${s.as.uid}`, `--regid=${s.as.gid}`, "--clear-groups", "--", ...command];
  const child = spawn(file!, argv, { cwd: s.repo.dir, env, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
  // A run that hangs (a named pipe opened) is stopped, then killed: the test fails on its state, never waits for ever.
  const term = setTimeout(() => child.kill("SIGTERM"), 200_000);
  const kill = setTimeout(() => child.kill("SIGKILL"), 230_000);
  const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
  clearTimeout(term);
  clearTimeout(kill);
  return { mission: await storedMission(s.git, s.repo.dir), code, stderr };
}

const summary = (m: Mission, id: string) => itemOf(m, id).attempts[0]?.summary ?? "";

describe.skipIf(bwrapSkipReason !== null)(
  `hostile agents against the gate and the object store${bwrapSkipReason ? ` (skipped: ${bwrapSkipReason})` : ""}`,
  () => {
    describe.each(USERS)("naruto running as %s", (_who, as) => {
      it("refuses big files, special files and colliding names by name before anything hashes them, and shows an agent only its start commit's objects", async () => {
        const s = await setup(as);
        const before = await userState(s);
        const { mission: m, code, stderr } = await run(s);
        if (s.as !== null) await chownTree(s.repo.dir, { uid: 0, gid: 0 }).catch(() => undefined);
        expect(m, stderr).not.toBeNull();
        if (m === null) return;
        const reason = (id: string) => itemOf(m, id).reason ?? "";
        if (process.env.HOSTILE_DEBUG)
          console.log(
            JSON.stringify(
              m.items.map((i) => ({ id: i.id, status: i.status, reason: i.reason, summary: summary(m, i.id) })),
              null,
              1,
            ),
          );

        // Too big, refused by name; the random file's blob never reached the user's store.
        expect.soft(itemOf(m, "atk-big").status, stderr).toBe("out_of_scope");
        expect.soft(reason("atk-big")).toContain("src/atk-big/big.bin (file_too_large)");
        const blob = /blob ([0-9a-f]{40})/.exec(summary(m, "atk-big"))?.[1];
        expect.soft(blob, summary(m, "atk-big")).toBeDefined();
        expect.soft((await s.git({ args: ["cat-file", "-e", blob!], cwd: s.repo.dir, okCodes: [1, 128] })).code).not.toBe(0);
        expect.soft(itemOf(m, "atk-sparse").status).toBe("out_of_scope");
        expect.soft(reason("atk-sparse")).toContain("src/atk-sparse/sparse.bin (file_too_large)");
        // A named pipe and a socket: refused by name, not dropped; naruto opened neither (it ended).
        expect.soft(summary(m, "atk-special")).toMatch(/^special-files: did made /);
        expect.soft(itemOf(m, "atk-special").status).toBe("out_of_scope");
        expect.soft(reason("atk-special")).toContain("src/atk-special/pipe (special_file)");
        expect.soft(reason("atk-special")).toContain("src/atk-special/socket (special_file)");
        expect.soft(reason("atk-special")).toContain("src/atk-special/.gitignore (special_file)");
        // One name on macOS and Windows: both names in the reason.
        expect.soft(itemOf(m, "atk-collide").status).toBe("out_of_scope");
        for (const name of ["README.md", "readme.md", "\u00e9.txt"]) expect.soft(reason("atk-collide")).toContain(`src/atk-collide/${name} (name_collision)`);
        expect.soft(reason("atk-collide")).toContain('"src/atk-collide/e\\u0301.txt" (name_collision)');
        // Only the start commit's objects: the reset-away secret is out of reach; its honest edit integrates.
        expect.soft(summary(m, "atk-objects")).toMatch(/^objects: failed: no secret among/);
        expect.soft(JSON.stringify(m)).not.toContain(s.secret);
        expect.soft(itemOf(m, "atk-objects").status).toBe("integrated");
        expect.soft(itemOf(m, "bystander").status).toBe("integrated");

        const after = await userState(s);
        if (process.env.HOSTILE_DEBUG)
          console.log(`objects: ${before.objects} → ${after.objects} bytes; unreachable: ${before.unreachable.length} → ${after.unreachable.length}`);
        expect.soft(after.files).toEqual(before.files);
        // The mission's own commits and state are all it adds (about 40 KiB here, the 4 MiB file alone
        // would be more than all of it); nothing it refused is in the store, not even unreachable.
        expect.soft(after.objects - before.objects).toBeLessThan(1024 * 1024);
        expect.soft(after.unreachable).toEqual(before.unreachable);
        expect.soft(code).not.toBe(0);
        expect(await processesWithEnv(`NARUTO_MISSION=${m.id}`)).toEqual([]);
      });
    });
  },
);
