/**
 * The gate on the Action path (docs/architecture.md): a work job's bundle is untrusted, so the job that
 * takes it re-checks it (`recheckCheckpoint`) with the same gate as a local checkpoint. Each row
 * is a checkpoint a compromised work job could send, forged byte for byte inside the item's
 * writes; each is refused with its path and rule, as `out_of_scope`, never thrown.
 *
 * The fake GitHub checks pushed objects like github.com (`receive.fsckObjects`): the rows git's
 * fsck refuses are pushed there too, and refused — that push is what, before the gate, failed
 * the job and left the attempt in flight until the sweep. The other rows are naruto's own policy
 * (GitHub takes them; config `allow:` and `limits.max_file_size` decide).
 *
 * Against the code before the gate, `recheckCheckpoint` accepted every row but the ones that also
 * leave the item's writes (`src/../README.md`).
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recheckCheckpoint } from "../../src/action/integrate/recheck.ts";
import type { WorkResult } from "../../src/action/artifacts.ts";
import { loadConfig, type Config } from "../../src/config/index.ts";
import { gitText } from "../../src/git/run-git.ts";
import type { Mission } from "../../src/mission/document.ts";
import { startFakeGitHub, type FakeGitHub } from "../support/fake-github/index.ts";
import { forgeCommit, type ForgedDir } from "../support/forged-tree.ts";
import { testGit } from "../support/git-repo.ts";
import { item, missionAfter, planned, requested } from "../support/mission-builders.ts";

const git = testGit();
const MISSION = "m-test1";
const BRANCH = `refs/heads/naruto/${MISSION}--alpha`;
const TRAILERS = `alpha\n\nNaruto-Mission: ${MISSION}\nNaruto-Item: alpha\nNaruto-Attempt: 1\nNaruto-Agent: default\n`;

let github: FakeGitHub;
let token: string;
let root: string;
let clone: string;
let base: string;
let mission: Mission;
const run = (...args: string[]) => gitText(git, { args, cwd: clone });

beforeAll(async () => {
  github = await startFakeGitHub();
  await github.createRepo({ owner: "acme", name: "app", files: { "README.md": "# app\n", "src/keep.txt": "keep\n" } });
  token = github.addUser("octo-maintainer", { permission: "write" }).token;
  root = await mkdtemp(join(tmpdir(), "naruto-gate-recheck-"));
  // The job's clone of the repository, with the mission's queue at the base.
  clone = join(root, "clone");
  await gitText(git, { args: ["clone", "-q", github.gitUrl("acme/app", token), clone], cwd: root });
  base = await run("rev-parse", "HEAD");
  await run("push", "-q", "origin", `${base}:refs/heads/naruto/${MISSION}`);
  await run("update-ref", "refs/naruto/queue", base);
  const start = requested();
  mission = missionAfter([{ ...start, base: { ref: "main", commit: base } } as typeof start, planned([item("alpha", [], { writes: ["src/alpha/"] })])]);
});
afterAll(async () => {
  await github.close();
  await rm(root, { recursive: true, force: true });
});

function config(text: string | null = null): Config {
  const loaded = loadConfig(text);
  if (!loaded.ok) throw new Error("invalid test config");
  return loaded.config;
}

let counter = 0;
/** A work artifact holding the forged checkpoint, as the work job would upload it. */
async function artifact(top: ForgedDir): Promise<{ folder: string; result: WorkResult; commit: string }> {
  const { commit } = await forgeCommit(git, clone, { base, top, message: TRAILERS });
  await run("update-ref", BRANCH, commit);
  const folder = join(root, `naruto-work-alpha-1-${counter++}`);
  await mkdir(folder, { recursive: true });
  await run("bundle", "create", "-q", join(folder, "checkpoint.bundle"), BRANCH, `^${base}`);
  await run("update-ref", "-d", BRANCH);
  const result: WorkResult = {
    schema: "naruto.work-result/v1",
    mission: MISSION,
    item: "alpha",
    attempt: 1,
    outcome: { kind: "checkpointed", commit, base, changed: ["src/alpha/x.ts"] },
    commit,
    base,
    job: null,
  };
  await writeFile(join(folder, "result.json"), JSON.stringify(result));
  return { folder, result, commit };
}

async function recheck(top: ForgedDir, cfg: Config = config()) {
  const { folder, result, commit } = await artifact(top);
  const alpha = mission.items.find((i) => i.id === "alpha")!;
  const checked = await recheckCheckpoint({
    git,
    repoDir: clone,
    folder,
    mission,
    item: alpha,
    attempt: 1,
    result,
    config: cfg,
    queueRef: "refs/naruto/queue",
  });
  return { checked, commit };
}

/** Pushes the forged commit to the fake GitHub (receive.fsckObjects on): null when taken, else its refusal. */
async function pushToGitHub(commit: string): Promise<string | null> {
  const out = await git({ args: ["push", "-q", "origin", `${commit}:refs/heads/forged-${counter++}`], cwd: clone, okCodes: [1, 128] });
  return out.code === 0 ? null : out.stderr;
}

const keep: ForgedDir[number] = ["keep.txt", "keep\n"];
const inAlpha = (...entries: ForgedDir): ForgedDir => [["src", [keep, ["alpha", [["x.ts", "export {};\n"], ...entries]]]]];

describe("the Action's re-check refuses forged checkpoints by path and rule", () => {
  it.each<[string, ForgedDir, string, boolean]>([
    ["a gitlink", inAlpha(["sub", { gitlink: "0123456789abcdef0123456789abcdef01234567" }]), "src/alpha/sub (gitlink)", false],
    [
      ".gitmodules under the subtree",
      inAlpha([".gitmodules", `[submodule "x"]\n\tpath = x\n\turl = https://example.test/x\n`]),
      "src/alpha/.gitmodules (gitmodules)",
      false,
    ],
    [
      "src/alpha/x/.gitattributes",
      inAlpha(["x", [[".gitattributes", "* filter=lfs diff=lfs merge=lfs\n"]]]),
      "src/alpha/x/.gitattributes (gitattributes)",
      false,
    ],
    ["a 101 MiB blob", inAlpha(["huge.bin", Buffer.alloc(101 * 1024 * 1024, 1)]), "src/alpha/huge.bin (file_too_large)", false],
    ["src/alpha/sub/.git/config", inAlpha(["sub", [[".git", [["config", "[core]\n\tfsmonitor = touch /tmp/pwned\n"]]]]]), "src/alpha/sub/.git (dotgit)", true],
    [
      "src/alpha/.GIT/hooks/post-checkout",
      inAlpha([".GIT", [["hooks", [["post-checkout", { content: "#!/bin/sh\n", mode: "100755" }]]]]]),
      "src/alpha/.GIT (dotgit)",
      true,
    ],
    ["git~1/config", inAlpha(["git~1", [["config", "[core]\n"]]]), "src/alpha/git~1 (dotgit)", true],
    [".git with an HFS+-ignored code point", inAlpha([".gi\u200ct", [["config", "[core]\n"]]]), "src/alpha/.gi\u200ct (dotgit)", true],
    [
      "src/../README.md as a tree entry",
      [["src", [keep, ["alpha", [["x.ts", "export {};\n"]]], ["../README.md", "# taken over\n"]]]],
      "src/../README.md (bad_name)",
      true,
    ],
    ["a .. tree inside the writes", inAlpha(["..", [["alpha", [["evil.ts", "export const evil = 1;\n"]]]]]), "src/alpha/.. (bad_name)", true],
    ["a name twice", inAlpha(["y.ts", "one\n"], ["y.ts", "two\n"]), "src/alpha/y.ts (duplicate_name)", true],
    [
      "README.md beside readme.md (one name on macOS and Windows)",
      inAlpha(["README.md", "a\n"], ["readme.md", "b\n"]),
      "src/alpha/readme.md (name_collision)",
      false,
    ],
    ["\u00e9.txt in NFC beside NFD", inAlpha(["\u00e9.txt", "a\n"], ["e\u0301.txt", "b\n"]), '"src/alpha/e\\u0301.txt" (name_collision)', false],
  ])("%s", async (_name, top, refusal, gitRefusesIt) => {
    const { checked, commit } = await recheck(top);
    expect(checked.kind).toBe("refused");
    if (checked.kind !== "refused") return;
    expect(checked.outcome.kind).toBe("out_of_scope");
    expect(checked.outcome.kind === "out_of_scope" && checked.outcome.paths).toContain(refusal);
    expect(checked.reason).toContain(refusal);
    // What github.com (receive.fsckObjects) does with the same commit.
    const pushed = await pushToGitHub(commit);
    if (gitRefusesIt) expect(pushed).toMatch(/fsck error|rejected|hasDot|duplicateEntries|fullPathname/);
    else expect(pushed).toBeNull();
  });

  it("accepts an honest checkpoint, which GitHub takes too (the control)", async () => {
    const { checked, commit } = await recheck(inAlpha(["y.ts", "export const y = 1;\n"]));
    expect(checked).toMatchObject({ kind: "accepted", outcome: { kind: "checkpointed", changed: ["src/alpha/x.ts", "src/alpha/y.ts"] } });
    expect(await pushToGitHub(commit)).toBeNull();
  });

  it("accepts a gitlink with its .gitmodules when config allows submodules, and a .gitattributes when it allows gitattributes", async () => {
    const top = inAlpha(
      ["sub", { gitlink: "0123456789abcdef0123456789abcdef01234567" }],
      [".gitmodules", `[submodule "sub"]\n\tpath = src/alpha/sub\n\turl = https://example.test/sub\n`],
      [".gitattributes", "*.bin binary\n"],
    );
    const { checked } = await recheck(top, config("allow: [submodules, gitattributes]\n"));
    expect(checked).toMatchObject({ kind: "accepted" });
  });

  it("takes a larger limits.max_file_size from config", async () => {
    const { checked } = await recheck(inAlpha(["big.bin", Buffer.alloc(2 * 1024 * 1024, 1)]), config("limits: { max_file_size: 1MiB }\n"));
    expect(checked.kind === "refused" && checked.reason).toMatch(/src\/alpha\/big\.bin \(file_too_large\)/);
  });
});
