/**
 * Issue 13, point 7, on the command line: an agent prints its own keys (an allowlisted
 * `ANTHROPIC_API_KEY`, and `ACME_SETTING`, whose name says nothing), credentials it was never
 * given (both `ghs_` forms, `github_pat_`, `sk-…`, AWS keys), a value split across two chunks
 * and values cut in pieces by line breaks and spaces,
 * writes them into its result file, and exits 1. Nothing of them may show anywhere `naruto run`
 * writes: the terminal (live view, summary, --json), report.md, result.json, the mission document
 * in refs/naruto/missions/, the attempt's output.log and result.json.
 */
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { createLocalMissionStore, readMissionRecords } from "../../src/store/git-store.ts";
import { fakeAgentCommand } from "../support/agents/index.ts";
import { createTestRepo, type TestRepo } from "../support/git-repo.ts";
import { LEAKY_ENV, leaksIn } from "../support/leaks.ts";
import { fakeCli } from "./cli-io.ts";
import { FAKE_AGENTS_DIR, planText } from "./local-fixture.ts";

const repos: TestRepo[] = [];
afterEach(async () => {
  await Promise.all(repos.splice(0).map((r) => r.remove()));
});

const CONFIG = {
  version: 1,
  agents: { default: { command: fakeAgentCommand("leaky"), read: [FAKE_AGENTS_DIR], env: ["ANTHROPIC_API_KEY", "ACME_SETTING"] } },
  limits: { max_attempts: 1, item_timeout: "2m" },
};

async function leakyRepo(): Promise<TestRepo> {
  const repo = await createTestRepo({ "README.md": "# app\n" });
  repos.push(repo);
  await repo.commit("naruto config", { ".github/naruto.yml": JSON.stringify(CONFIG, null, 2) });
  await writeFile(join(repo.dir, ".git", "plan.json"), planText([{ id: "leak" }]));
  return repo;
}

async function naruto(repo: TestRepo, argv: string[], options: { isTTY?: boolean } = {}) {
  const cli = fakeCli(repo.dir);
  const io = { ...cli.io, env: { ...cli.io.env, ...LEAKY_ENV }, isTTY: options.isTTY ?? false };
  const code = await main(argv, io);
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

/** Every file under `dir`, as `path → text`. */
async function filesUnder(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) out[join(entry.parentPath, entry.name)] = await readFile(join(entry.parentPath, entry.name), "utf8");
  }
  return out;
}

describe("naruto run with an agent that prints secrets", () => {
  it("shows none of them on the terminal, in the reports, in the stored mission or in the attempt's records", async () => {
    const repo = await leakyRepo();
    const json = await naruto(repo, ["run", "--plan", ".git/plan.json", "--json"]);
    expect(json.code).toBe(1);
    const result = JSON.parse(json.stdout) as { mission: string; items: { id: string; status: string; reason: string | null }[] };
    expect(result.items).toEqual([expect.objectContaining({ id: "leak", status: "failed" })]);

    const live = await naruto(repo, ["run", "--plan", ".git/plan.json"], { isTTY: true });
    const status = await naruto(repo, ["status", result.mission]);
    const store = createLocalMissionStore({ git: repo.git, repoDir: repo.dir });
    const stored = await Promise.all(
      (await store.list()).map(async (id) =>
        [...(await readMissionRecords(repo.git, repo.dir, await repo.run("rev-parse", `refs/naruto/missions/${id}`))).values()].join("\n"),
      ),
    );
    const records = await filesUnder(join(repo.dir, ".git", "naruto"));

    const places: Record<string, string> = {
      "run --json stdout": json.stdout,
      "run --json stderr": json.stderr,
      "run (terminal) stdout": live.stdout,
      "run (terminal) stderr": live.stderr,
      status: status.stdout,
      ...Object.fromEntries(stored.map((text, i) => [`stored mission ${i}`, text])),
      ...records,
    };
    expect(Object.keys(records).some((p) => p.endsWith("report.md"))).toBe(true);
    const leaks = Object.entries(places).flatMap(([where, text]) => leaksIn(text).map((secret) => `${secret} in ${where}`));
    expect(leaks).toEqual([]);

    // What happened is still told, with the secrets taken out; a value that came in two chunks too.
    expect(result.items[0]?.reason).toContain("exited with code 1");
    expect(result.items[0]?.reason).toContain("leaky: my key is [redacted] and my setting is [redacted]");
    const outputLog = Object.entries(records).find(([path]) => path.endsWith("output.log"))?.[1] ?? "";
    expect(outputLog).toContain("leaky: split [redacted] and [redacted] done");
    // Cut in pieces by whitespace (issue 31): the pieces go, what was around them stays.
    expect(outputLog).toContain("leaky: halves [redacted]\nleaky: spaced [redacted]\nleaky: chunks\n[redacted]\nleaky: streamed [redacted] end\n");
  }, 180_000);
});
