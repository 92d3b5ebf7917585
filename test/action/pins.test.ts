/**
 * Every `uses:` in templates/*.yml and .github/workflows/ is pinned: `owner/repo[/path]@<40 hex>`
 * with `# vX.Y.Z` on its line (a local `./…` action and a `docker://…@sha256:…` image are pinned
 * by nature). A tag can be moved to new code that then runs with the job's token; a commit
 * cannot. naruto's own action is pinned too, to a commit of this repository's history that has
 * what the Action runs (action.yml, dist/index.js). scripts/pin-actions.mjs writes such pins; the
 * temporary copies here show the check failing on an unpinned template and passing once pinned.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadActionPins, pinOf, RUNNER_NODE, type ActionPin } from "../support/action-pins.ts";
import { pinnedCommit, workflowPinProblems, where, type UsesEntry, type WorkflowFile } from "../support/workflow-pins.ts";

const run = promisify(execFile);
const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PIN_SCRIPT = join(REPO_ROOT, "scripts/pin-actions.mjs");
const NARUTO = "naruto-dev/naruto";
const SHA_A = "11d5960a326750d5838078e36cf38b85af677262";
const SHA_B = "ea165f8d65b6e75b540449e92b4886f43607fa02";
const DIGEST = "a".repeat(64);

async function git(args: readonly string[]): Promise<string | null> {
  try {
    return (await run("git", args, { cwd: REPO_ROOT })).stdout.trim();
  } catch {
    return null;
  }
}

/** True when the project is its own git checkout (not a folder inside another repository). */
async function isGitCheckout(): Promise<boolean> {
  const top = await git(["rev-parse", "--show-toplevel"]);
  return top !== null && (await realpath(top)) === (await realpath(REPO_ROOT));
}

/**
 * Why the commits naruto-dev/naruto is pinned to could not run as the Action: each must be in
 * HEAD's history (not a commit amended or rebased away) with action.yml and dist/index.js, and a
 * workflow must use one commit in every job, since one job reads what naruto wrote in another.
 */
async function narutoCommitProblems(entries: readonly UsesEntry[]): Promise<string[]> {
  const problems: string[] = [];
  const shaByFile = new Map<string, UsesEntry>();
  for (const entry of entries) {
    const at = entry.value.lastIndexOf("@");
    if (entry.value.slice(0, at) !== NARUTO) continue;
    const sha = entry.value.slice(at + 1);
    const first = shaByFile.get(entry.file);
    if (first === undefined) shaByFile.set(entry.file, entry);
    else if (first.value !== entry.value) problems.push(`${where(entry)}: ${where(first)} pins naruto to another commit; use one in every job`);
    if (!/^[0-9a-f]{40}$/.test(sha)) {
      problems.push(`${where(entry)}: not pinned to a commit of this repository`);
      continue;
    }
    if ((await git(["cat-file", "-e", `${sha}^{commit}`])) === null) {
      problems.push(`${where(entry)}: ${sha} is not a commit of this repository (a shallow clone? git fetch --unshallow)`);
      continue;
    }
    if ((await git(["merge-base", "--is-ancestor", sha, "HEAD"])) === null) problems.push(`${where(entry)}: ${sha} is not in HEAD's history`);
    for (const file of ["action.yml", "dist/index.js"]) {
      if ((await git(["cat-file", "-e", `${sha}:${file}`])) === null) problems.push(`${where(entry)}: commit ${sha} has no ${file}`);
    }
  }
  return problems;
}

async function projectWorkflows(): Promise<WorkflowFile[]> {
  const read = async (folder: string, pattern: RegExp): Promise<WorkflowFile[]> => {
    const names = await readdir(join(REPO_ROOT, folder)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return [];
      throw error;
    });
    const files = names.filter((name) => pattern.test(name)).sort();
    return Promise.all(files.map(async (name) => ({ file: `${folder}/${name}`, text: await readFile(join(REPO_ROOT, folder, name), "utf8") })));
  };
  return [...(await read("templates", /\.yml$/)), ...(await read(".github/workflows", /\.ya?ml$/))];
}

/** A workflow whose one job `build` has one step `fetch` with this `uses:` line. */
function oneStep(usesLine: string): WorkflowFile {
  return {
    file: "fixture.yml",
    text: `on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - name: fetch\n        uses: ${usesLine}\n        with:\n          fetch-depth: 0\n`,
  };
}

describe("the pin rules", () => {
  it.each([
    ["a major tag", "actions/checkout@v4", "not pinned to a full commit SHA"],
    ["a full release tag", "actions/checkout@v4.4.0 # v4.4.0", "not pinned to a full commit SHA"],
    ["a branch", "actions/checkout@main", "not pinned to a full commit SHA"],
    ["no ref at all", "actions/checkout", "not pinned to a full commit SHA"],
    ["a short SHA", `actions/checkout@${SHA_A.slice(0, 12)} # v4.4.0`, "not pinned to a full commit SHA"],
    ["an uppercase SHA", `actions/checkout@${SHA_A.toUpperCase()} # v4.4.0`, "not pinned to a full commit SHA"],
    ["a SHA without its release", `actions/checkout@${SHA_A}`, "# vX.Y.Z"],
    ["a SHA with a major version only", `actions/checkout@${SHA_A} # v4`, "# vX.Y.Z"],
    ["a SHA with some other comment", `actions/checkout@${SHA_A} # pinned`, "# vX.Y.Z"],
    ["an image by tag", "docker://alpine:3.20", "pinned by digest"],
    ["an image by a short digest", "docker://alpine@sha256:abc123", "pinned by digest"],
  ])("refuses %s, naming file, job, step and value", (_, usesLine, why) => {
    const { problems } = workflowPinProblems([oneStep(usesLine)]);
    const value = usesLine.split(" #")[0] ?? "";
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(`fixture.yml: job build, step 1 "fetch": uses: ${value}`);
    expect(problems[0]).toContain(why);
  });

  it.each([
    ["a SHA with its release", `actions/checkout@${SHA_A} # v4.4.0`],
    ["a quoted SHA", `"actions/checkout@${SHA_A}"   #   v4.4.0`],
    ["an action in a subfolder", `github/codeql-action/init@${SHA_A} # v3.28.1`],
    ["a local action", "./.github/actions/setup"],
    ["an image by digest", `docker://alpine@sha256:${DIGEST}`],
  ])("accepts %s", (_, usesLine) => {
    expect(workflowPinProblems([oneStep(usesLine)]).problems).toEqual([]);
  });

  it("wants the release on the SHA's own line, not the next", () => {
    const text = `jobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - id: get\n        uses: actions/checkout@${SHA_A}\n        # v4.4.0\n`;
    expect(workflowPinProblems([{ file: "next-line.yml", text }]).problems).toEqual([
      `next-line.yml: job build, step 1 (id get): uses: actions/checkout@${SHA_A}: the SHA needs its release on the same line, as \`# vX.Y.Z\` (found "")`,
    ]);
  });

  it("checks a reusable workflow's job-level uses:", () => {
    const unpinned = `jobs:\n  release:\n    uses: acme/workflows/.github/workflows/release.yml@v2\n`;
    expect(workflowPinProblems([{ file: "reuse.yml", text: unpinned }]).problems).toEqual([
      "reuse.yml: job release: uses: acme/workflows/.github/workflows/release.yml@v2: not pinned to a full commit SHA (owner/repo[/path]@<40 lowercase hex>)",
    ]);
    const pinned = `jobs:\n  release:\n    uses: acme/workflows/.github/workflows/release.yml@${SHA_B} # v2.0.1\n  local:\n    uses: ./.github/workflows/build.yml\n`;
    expect(workflowPinProblems([{ file: "reuse.yml", text: pinned }]).problems).toEqual([]);
  });

  it("wants one release per commit of an action, and one commit per release, across files", () => {
    const twoReleases = workflowPinProblems([
      oneStep(`actions/checkout@${SHA_A} # v4.4.0`),
      { ...oneStep(`actions/checkout@${SHA_A} # v4.3.1`), file: "other.yml" },
    ]);
    expect(twoReleases.problems).toEqual([
      expect.stringMatching(
        /^other\.yml: job build, step 1 "fetch": uses: actions\/checkout@11d5\w+ # v4\.3\.1: the same commit is # v4\.4\.0 in fixture\.yml/,
      ),
    ]);
    const twoCommits = workflowPinProblems([
      oneStep(`actions/checkout@${SHA_A} # v4.4.0`),
      { ...oneStep(`actions/checkout/sub@${SHA_B} # v4.4.0`), file: "other.yml" },
    ]);
    expect(twoCommits.problems).toEqual([expect.stringContaining("v4.4.0 is another commit in fixture.yml")]);
    const twoActions = workflowPinProblems([
      oneStep(`actions/checkout@${SHA_A} # v4.4.0`),
      { ...oneStep(`actions/setup-node@${SHA_B} # v4.4.0`), file: "other.yml" },
    ]);
    expect(twoActions.problems).toEqual([]);
  });
});

describe("naruto's own pin", () => {
  it("refuses a commit this repository does not have, one without the Action's files, and two commits in one workflow", async (ctx) => {
    if (!(await isGitCheckout())) return ctx.skip(`${REPO_ROOT} is not a git checkout: cannot tell which commits are naruto's`);
    const root = await git(["rev-list", "--max-parents=0", "HEAD"]);
    const built = await git(["log", "-1", "--format=%H", "--", "dist", "action.yml"]);
    const entry = (sha: string, job: string): UsesEntry => ({ file: "t.yml", job, step: "step 1", value: `${NARUTO}@${sha}`, rest: " # v0.1.0" });
    expect(await narutoCommitProblems([entry(built ?? "", "a")])).toEqual([]);
    const problems = await narutoCommitProblems([entry("0".repeat(40), "a"), entry(root?.split("\n")[0] ?? "", "b")]);
    expect(problems).toEqual([
      `t.yml: job a, step 1: uses: ${NARUTO}@${"0".repeat(40)}: ${"0".repeat(40)} is not a commit of this repository (a shallow clone? git fetch --unshallow)`,
      expect.stringContaining("t.yml: job b, step 1: uses: naruto-dev/naruto@"),
      expect.stringMatching(/job b, step 1: .* has no action\.yml$/),
      expect.stringMatching(/job b, step 1: .* has no dist\/index\.js$/),
    ]);
    expect(problems[1]).toContain("pins naruto to another commit");
  });
});

describe("the workflow template, pinned by scripts/pin-actions.mjs in a temporary copy", () => {
  let dir = "";
  let checkout = false;
  let unpinned = "";
  let pinned = "";
  let pinOutput = "";
  const copy = () => join(dir, "naruto.yml");
  /** Outside a git checkout the script cannot find naruto's commit: give it one, unchecked. */
  const narutoArgs = () => (checkout ? [] : ["--naruto", "f".repeat(40), "--naruto-version", "v0.0.0"]);

  beforeAll(async () => {
    checkout = await isGitCheckout();
    dir = await mkdtemp(join(tmpdir(), "naruto-pins-"));
    const template = await readFile(join(REPO_ROOT, "templates/naruto.yml"), "utf8");
    // The template as it was before it was pinned: every action by its major tag.
    unpinned = template.replace(
      /^(\s*(?:-\s+)?uses:\s*)([\w.-]+\/[\w.-]+)@\S+(?:\s+#\s*(v\d+))?.*$/gm,
      (_, key: string, action: string, major: string | undefined) => `${key}${action}@${action === NARUTO ? "v0" : (major ?? "v0")}`,
    );
    await writeFile(copy(), unpinned);
    pinOutput = (await run(process.execPath, [PIN_SCRIPT, ...narutoArgs(), copy()], { cwd: dir })).stdout;
    pinned = await readFile(copy(), "utf8");
  });
  afterAll(async () => {
    if (dir !== "") await rm(dir, { recursive: true, force: true });
  });

  it("fails while unpinned, naming each step", () => {
    const before = workflowPinProblems([{ file: "naruto.yml", text: unpinned }]);
    expect(before.entries.length).toBeGreaterThan(0);
    expect(before.problems).toHaveLength(before.entries.length);
    expect(before.problems).toContain(
      "naruto.yml: job plan, step 1: uses: actions/checkout@v5: not pinned to a full commit SHA (owner/repo[/path]@<40 lowercase hex>)",
    );
    expect(pinOutput).toContain(`naruto.yml: pinned ${before.entries.length} uses:`);
  });

  it("passes once pinned, with the same steps", () => {
    const before = workflowPinProblems([{ file: "naruto.yml", text: unpinned }]);
    const after = workflowPinProblems([{ file: "naruto.yml", text: pinned }]);
    expect(after.problems).toEqual([]);
    expect(after.entries.map((e) => `${e.job}/${e.step ?? "-"}`)).toEqual(before.entries.map((e) => `${e.job}/${e.step ?? "-"}`));
  });

  it("pins naruto to the commit of this repository that last changed what the Action runs", async (ctx) => {
    if (!checkout) return ctx.skip(`${REPO_ROOT} is not a git checkout: cannot tell which commits are naruto's`);
    const { entries } = workflowPinProblems([{ file: "naruto.yml", text: pinned }]);
    const built = await git(["log", "-1", "--format=%H", "--", "dist", "action.yml"]);
    expect(new Set(entries.filter((e) => e.value.startsWith(`${NARUTO}@`)).map((e) => e.value))).toEqual(new Set([`${NARUTO}@${built ?? ""}`]));
    expect(await narutoCommitProblems(entries)).toEqual([]);
  });

  it("changes nothing when run again", async () => {
    const again = await run(process.execPath, [PIN_SCRIPT, ...narutoArgs(), copy()], { cwd: dir });
    expect(again.stdout).toContain("every uses: already pinned");
    expect(await readFile(copy(), "utf8")).toBe(pinned);
  });

  it("fails again when one step goes back to a tag", () => {
    const reverted = pinned.replace(/actions\/upload-artifact@[0-9a-f]{40} # v[\d.]+/, "actions/upload-artifact@v6");
    expect(workflowPinProblems([{ file: "naruto.yml", text: reverted }]).problems).toEqual([
      'naruto.yml: job plan, step 5 "naruto upload": uses: actions/upload-artifact@v6: not pinned to a full commit SHA (owner/repo[/path]@<40 lowercase hex>)',
    ]);
  });

  it("refuses to pin an action it has no pin for, and changes no file", async () => {
    const good = join(dir, "good.yml");
    const bad = join(dir, "bad.yml");
    const text = (uses: string) => `jobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: ${uses}\n`;
    await writeFile(good, text("actions/checkout@v5"));
    await writeFile(bad, text("actions/setup-node@v4"));
    const failed = await run(process.execPath, [PIN_SCRIPT, good, bad], { cwd: dir }).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain("bad.yml: line 5: actions/setup-node@v4: no pin for actions/setup-node in scripts/action-pins.json");
    expect(await readFile(good, "utf8")).toBe(text("actions/checkout@v5"));
  });
});

/**
 * What each pinned third-party action runs on, read from the pin list: a `uses:` pinned to a
 * commit the list does not know has no known runtime, and one whose release declares another
 * Node than the runners' is forced onto theirs (with a deprecation annotation in every job).
 */
function runtimeProblems(entries: readonly UsesEntry[], pins: readonly ActionPin[]): string[] {
  return entries.flatMap((entry) => {
    const commit = pinnedCommit(entry);
    if (commit === null || commit.repo === NARUTO) return [];
    const pin = pinOf(pins, entry.value);
    if (pin === null) return [`${where(entry)}: no release at this commit in scripts/action-pins.json: its runtime is unknown`];
    return pin.using === RUNNER_NODE ? [] : [`${where(entry)}: ${pin.action} ${pin.version} declares runs.using ${pin.using}, not ${RUNNER_NODE}`];
  });
}

describe("the runtime of each pinned action", () => {
  it("is read from the pin list: an unknown commit and an older Node are named", () => {
    const pins: ActionPin[] = [{ action: "actions/checkout", version: "v4.4.0", sha: SHA_A, using: "node20" }];
    const entries = [
      ...workflowPinProblems([oneStep(`actions/checkout@${SHA_A} # v4.4.0`)]).entries,
      ...workflowPinProblems([{ ...oneStep(`actions/checkout@${SHA_B} # v4.9.9`), file: "other.yml" }]).entries,
    ];
    expect(runtimeProblems(entries, pins)).toEqual([
      `fixture.yml: job build, step 1 "fetch": uses: actions/checkout@${SHA_A}: actions/checkout v4.4.0 declares runs.using node20, not node24`,
      `other.yml: job build, step 1 "fetch": uses: actions/checkout@${SHA_B}: no release at this commit in scripts/action-pins.json: its runtime is unknown`,
    ]);
  });

  it("is node24 for every release in the pin list, and every third-party action of the template is one of them", async () => {
    const pins = loadActionPins();
    expect(pins.map((p) => `${p.action} ${p.version}: ${p.using}`)).toEqual(pins.map((p) => `${p.action} ${p.version}: ${RUNNER_NODE}`));
    const { entries } = workflowPinProblems(await projectWorkflows());
    const thirdParty = entries.filter((e) => pinnedCommit(e)?.repo !== NARUTO);
    expect(new Set(thirdParty.map((e) => pinnedCommit(e)?.repo))).toEqual(
      new Set(["actions/checkout", "actions/upload-artifact", "actions/download-artifact"]),
    );
    expect(runtimeProblems(entries, pins)).toEqual([]);
  });
});

describe("this repository's workflows", () => {
  it("pin every uses: to a commit, with its release", async () => {
    const { entries, problems } = workflowPinProblems(await projectWorkflows());
    expect(entries.length).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });

  it("pin naruto to a commit of this repository that has action.yml and dist/index.js", async (ctx) => {
    if (!(await isGitCheckout())) return ctx.skip(`${REPO_ROOT} is not a git checkout: cannot tell whether naruto's pinned commit is in its history`);
    const { entries } = workflowPinProblems(await projectWorkflows());
    expect(entries.filter((e) => e.value.startsWith(`${NARUTO}@`)).length).toBeGreaterThan(0);
    expect(await narutoCommitProblems(entries)).toEqual([]);
  });
});
