/**
 * What a newcomer meets when something is not ready: the real `bin/naruto.js`, as a process, in
 * scratch repositories. Every expected failure exits 2 with a line that names the problem and
 * the next step, never a stack frame, and leaves no mission and no branch behind.
 */
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createGit, gitText } from "../../src/git/run-git.ts";
import { createTestRepo, type TestRepo } from "../support/git-repo.ts";
import { cliEnv } from "./cli-io.ts";
import { expectRefused, naruto, refs, STACK_FRAME } from "./naruto-process.ts";

const VERSION = (JSON.parse(await readFile(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;
const PLAN = "version: 1\ntitle: t\nitems:\n  - { id: a, title: A, writes: [a.txt] }\n";

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((f) => f()));
});

async function scratch(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "naruto-cli-errors-"));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function repo(): Promise<TestRepo> {
  const r = await createTestRepo({ "README.md": "# app\n" });
  cleanup.push(() => r.remove());
  return r;
}

describe("naruto refuses what is not ready, in a line that says what to do", () => {
  it("in a repository with no commits", async () => {
    const dir = await scratch();
    await gitText(createGit({ env: cliEnv() }), { args: ["init", "-q", dir], cwd: dir });
    await writeFile(join(dir, "plan.yml"), PLAN);
    expectRefused(await naruto(dir, ["run", "--plan", "plan.yml"]), "no commits yet", "make a first commit");
    expect(await refs(dir)).toBe("");
  });

  it("outside a repository", async () => {
    expectRefused(await naruto(await scratch(), ["status"]), "not inside a git repository");
  });

  it("with an unknown --base", async () => {
    const r = await repo();
    await writeFile(join(r.dir, ".git", "plan.yml"), PLAN);
    expectRefused(await naruto(r.dir, ["run", "--plan", ".git/plan.yml", "--base", "no-such-branch"]), '"no-such-branch" is not a commit', "--base");
    expect(await refs(r.dir)).toBe("refs/heads/main");
  });

  it("with a plan file that does not exist, for plan, run and verify-proof", async () => {
    const r = await repo();
    for (const args of [
      ["plan", "/nonexistent.yml"],
      ["run", "--plan", "/nonexistent.yml"],
      ["verify-proof", "/nonexistent.yml", "/nonexistent.json"],
    ]) {
      expectRefused(await naruto(r.dir, args), "cannot read the plan /nonexistent.yml: no such file");
    }
    expect(await refs(r.dir)).toBe("refs/heads/main");
  });

  it("with an invalid plan: the error, where to check it, and no mission or branch, however often it is tried", async () => {
    const r = await repo();
    await writeFile(join(r.dir, ".git", "bad.yml"), "items:\n  - id: a\n   writes: [a.txt]\n");
    for (let i = 0; i < 3; i++) {
      expectRefused(await naruto(r.dir, ["run", "--plan", ".git/bad.yml"]), "the plan .git/bad.yml is invalid", "line 3, column 1", "naruto plan .git/bad.yml");
    }
    expect(await refs(r.dir)).toBe("refs/heads/main");
    // `naruto plan` answers "no" (exit 1), and its message starts with the file, not ": line …".
    const plan = await naruto(r.dir, ["plan", ".git/bad.yml"]);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toMatch(/^\.git\/bad\.yml is invalid:\n {2}line 3, column 1: /);
  });

  it("when the agent CLI is not installed: named once, with how to install it and the alternatives; nothing made", async () => {
    const r = await repo();
    const run = await naruto(r.dir, ["run", "--task", "add a README section"]);
    expectRefused(run, "`claude`, which is not installed", "npm install -g @anthropic-ai/claude-code", "--plan FILE --agent COMMAND");
    expect(run.stderr.split("not installed").length).toBe(2);
    expect(await refs(r.dir)).toBe("refs/heads/main");
  });

  it("when an --agent command is not found", async () => {
    const r = await repo();
    await writeFile(join(r.dir, ".git", "plan.yml"), PLAN);
    expectRefused(
      await naruto(r.dir, ["run", "--plan", ".git/plan.yml", "--agent", "nonexistent-cmd --flag"]),
      "`nonexistent-cmd`, which is not found on PATH",
    );
    expect(await refs(r.dir)).toBe("refs/heads/main");
  });

  it("for an unknown mission, the same way for status, resume and cancel", async () => {
    const r = await repo();
    for (const command of ["status", "resume", "cancel"]) expectRefused(await naruto(r.dir, [command, "m-nope"]), "no mission m-nope", "naruto status");
  });
});

describe("version, help, and what an ended mission says", () => {
  it("prints the version for --version and -V", async () => {
    const dir = await scratch();
    for (const flag of ["--version", "-V"]) expect(await naruto(dir, [flag])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
  });

  it("has help that stands alone: no file outside the package, and the exit codes", async () => {
    const dir = await scratch();
    const help = await naruto(dir, ["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Exit codes:");
    expect(help.stdout).toContain("--version");
    for (const command of ["plan", "run", "status"]) expect((await naruto(dir, [command, "--help"])).stdout).not.toMatch(/DESIGN\.md|§/);
    expect(help.stdout).not.toMatch(/DESIGN\.md|§/);
  });

  it("says once that uncommitted changes are not part of the mission, and why resuming an ended mission does nothing", async () => {
    const r = await repo();
    await writeFile(join(r.dir, ".git", "plan.yml"), PLAN);
    await writeFile(join(r.dir, "README.md"), "# app, edited\n");
    const run = await naruto(r.dir, ["run", "--plan", ".git/plan.yml", "--agent", "printf 'a\\n' > a.txt", "--sandbox", "none", "--verify", "true"]);
    // As root without a sandbox the agents ran as root: the verdict is capped at request_changes (exit 1).
    const asRoot = process.getuid?.() === 0;
    expect(run.code, run.stderr + run.stdout).toBe(asRoot ? 1 : 0);
    expect(run.stdout.match(/uncommitted file/g)).toEqual(["uncommitted file"]);
    expect(run.stdout).toContain("1 uncommitted file in your work tree is not part of the mission");
    // The base is verified first, then the batch (#37).
    expect(run.stdout).toMatch(/\(2 verify runs\)/);
    const id = /mission (m-[a-z0-9]+)/.exec(run.stdout)?.[1] ?? "";
    const resume = await naruto(r.dir, ["resume", id]);
    expect(resume.code).toBe(asRoot ? 1 : 0);
    expect(resume.stderr).toContain(`mission ${id} has already ended (done, verdict ${asRoot ? "request_changes" : "approve"}): there is nothing to resume`);
  });
});

describe("an unexpected error", () => {
  it("prints one line and where its trace is, or the trace with --debug", async () => {
    const r = await repo();
    const traces = await scratch();
    // A mission store that is not naruto's: reading it is a defect path, not an expected refusal.
    await writeFile(join(r.dir, ".git", "naruto"), "not a folder\n");
    await writeFile(join(r.dir, ".git", "plan.yml"), PLAN);
    const plain = await naruto(r.dir, ["run", "--plan", ".git/plan.yml", "--agent", "printf x > a.txt", "--sandbox", "none"], { TMPDIR: traces });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/^naruto: unexpected error: .+\n\(the full trace is in .+naruto-error-.+\.log; please report it/);
    expect(plain.stderr).not.toMatch(STACK_FRAME);
    const [file] = await readdir(traces);
    expect(await readFile(join(traces, file ?? ""), "utf8")).toMatch(STACK_FRAME);
    const debug = await naruto(r.dir, ["--debug", "run", "--plan", ".git/plan.yml", "--agent", "printf x > a.txt", "--sandbox", "none"], { TMPDIR: traces });
    expect(debug.code).toBe(2);
    expect(debug.stderr).toMatch(STACK_FRAME);
  });
});
