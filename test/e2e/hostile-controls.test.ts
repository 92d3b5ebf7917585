/**
 * Positive controls for the hostile agents: given a write token somewhere on their machine
 * (another process's environment, a persisted git credential, a later step's environment),
 * each of them does find it and write with it. Without these, "the hostile agents reached
 * nothing" in the e2e scenario could just mean that they are blind.
 */
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { gitText } from "../../src/git/run-git.ts";
import { canIsolate, startMachine, type Machine } from "../support/actions-sim/machine.ts";
import { fakeAgentPath } from "../support/agents/index.ts";
import { startFakeGitHub, type FakeGitHub } from "../support/fake-github/index.ts";
import { testGit } from "../support/git-repo.ts";
import { readReport } from "./support/hostile-report.ts";

const HOSTILE = (name: "token-hunter" | "pusher" | "lingerer") => fakeAgentPath(`hostile-${name}`);
const git = testGit();

let fake: FakeGitHub;
let writeToken: string;

beforeAll(async () => {
  fake = await startFakeGitHub();
  await fake.createRepo({ owner: "acme", name: "demo", files: { "README.md": "# demo\n" }, issues: [{ title: "First issue" }] });
  writeToken = fake.issueAppToken({ owner: "acme", permissions: { contents: "write", issues: "write" } }).token;
});
afterAll(async () => {
  fake.assertNoViolations();
  await fake.close();
});

interface Box {
  readonly machine: Machine;
  readonly checkout: string;
  readonly reports: string;
  env(extra?: Record<string, string>): Record<string, string>;
}
let box: Box | undefined;
let boxDir: string | undefined;

/** A machine with a clone of acme/demo (no credentials unless `persist`) and a prompt naming the report folder. */
async function startBox(input: { persist?: string } = {}): Promise<Box> {
  boxDir = await realpath(await mkdtemp(join(tmpdir(), "hostile-control-")));
  const checkout = join(boxDir, "work", "demo", "demo");
  const reports = join(boxDir, "reports");
  await mkdir(reports, { recursive: true });
  await gitText(git, {
    args: ["clone", "-q", `${fake.url}/acme/demo.git`, checkout],
    cwd: boxDir,
    env: {
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: `http.${fake.url}/.extraheader`,
      GIT_CONFIG_VALUE_0: `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${writeToken}`).toString("base64")}`,
    },
  });
  if (input.persist !== undefined)
    await gitText(git, {
      args: ["config", "--local", `http.${fake.url}/.extraheader`, `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${input.persist}`).toString("base64")}`],
      cwd: checkout,
    });
  await writeFile(join(boxDir, "prompt.md"), `## Your work item\n\nhostile-report-dir: ${reports}\n`);
  const machine = await startMachine({ jobDir: boxDir, trackingId: "control", isolation: "namespace", readOnly: [join(fakeAgentPath("edit"), "..")] });
  // The machine's user must own its folders, as the runner user owns a job's.
  expect(spawnSync("chown", ["-R", "65534:65534", boxDir]).status).toBe(0);
  const dir = boxDir;
  const env = (extra: Record<string, string> = {}) => ({
    PATH: process.env["PATH"] ?? "/usr/bin:/bin",
    HOME: join(dir, "home"),
    NARUTO_PROMPT_FILE: join(dir, "prompt.md"),
    NARUTO_ITEM: "control",
    NARUTO_ATTEMPT: "1",
    NARUTO_MISSION: "m-control",
    NARUTO_WRITES: "hostile/",
    ...extra,
  });
  return (box = { machine, checkout, reports, env });
}

afterEach(async () => {
  await box?.machine.close();
  box = undefined;
  if (boxDir !== undefined) await rm(boxDir, { recursive: true, force: true });
});

describe.skipIf(!canIsolate())("the hostile agents find a write token when there is one", () => {
  it("the token hunter reads another process's environment and writes a ref and a comment", async () => {
    const { machine, checkout, reports, env } = await startBox();
    await machine.exec({ argv: ["sh", "-c", 'GITHUB_TOKEN="$DECOY" sleep 30 >/dev/null 2>&1 &'], cwd: checkout, env: env({ DECOY: writeToken }) });
    const run = await machine.exec({ argv: [process.execPath, HOSTILE("token-hunter")], cwd: checkout, env: env() });
    expect(run.code, run.output).toBe(0);
    const [hunt] = await readReport(reports, "hunter");
    expect(hunt?.found.some((f) => f.where.includes("/environ"))).toBe(true);
    expect(hunt?.worked.map((a) => a.what)).toEqual(expect.arrayContaining(["create ref", "comment"]));
    const comments = [...fake.repo("acme/demo").comments.values()].map((c) => c.body);
    expect(comments.some((b) => b.startsWith("hostile write hunter-control-1"))).toBe(true);
  });

  it("the pusher pushes with a credential persisted in the checkout's git config", async () => {
    const { machine, checkout, reports, env } = await startBox({ persist: writeToken });
    const run = await machine.exec({ argv: [process.execPath, HOSTILE("pusher")], cwd: checkout, env: env() });
    expect(run.code, run.output).toBe(0);
    const [push] = await readReport(reports, "pusher");
    expect(push?.worked.map((a) => a.ref)).toContain("refs/heads/hostile-push-control-1");
    const refs = await gitText(git, { args: ["for-each-ref", "--format=%(refname)"], cwd: fake.repo("acme/demo").dir });
    expect(refs).toContain("refs/heads/hostile-push-control-1");
  });

  it("the lingerer outlives its agent and writes with a token a later step holds", async () => {
    const { machine, checkout, reports, env } = await startBox();
    const run = await machine.exec({ argv: [process.execPath, HOSTILE("lingerer")], cwd: checkout, env: env({ LINGER_SECONDS: "20" }) });
    expect(run.code, run.output).toBe(0);
    // A later step of the same job, holding a write token while it runs.
    await machine.exec({ argv: ["sh", "-c", "sleep 4"], cwd: checkout, env: env({ "INPUT_GITHUB-TOKEN": writeToken }) });
    const rounds = await readReport(reports, "lingerer");
    expect(rounds.some((r) => r.event === "outlived the agent")).toBe(true);
    expect(rounds.flatMap((r) => r.worked).length).toBeGreaterThan(0);
    expect(await machine.close()).toBeGreaterThanOrEqual(1);
  });
});
