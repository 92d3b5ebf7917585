/**
 * `naruto run --json` and `naruto status --json` in-process (README, "naruto run --json"): exactly the result
 * object, and exit code 0 only when the verdict is `approve`.
 */
import { readFile, realpath, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { shellQuote } from "../../src/agent/shell-quote.ts";
import { main } from "../../src/cli/main.ts";
import { createLocalMissionStore } from "../../src/store/git-store.ts";
import { missionResult } from "../../src/report/index.ts";
import { createTestRepo, type TestRepo } from "../support/git-repo.ts";
import { fakeCli } from "./cli-io.ts";
import { fakeConfigFile, planText, type ItemSpec } from "./local-fixture.ts";

const repos: TestRepo[] = [];
afterEach(async () => {
  await Promise.all(repos.splice(0).map((r) => r.remove()));
});

const PLANNER = fileURLToPath(new URL("./fake-planner.mjs", import.meta.url));

/** A repository whose committed `.github/naruto.yml` runs the fake agents, and a plan file in `.git/`. */
async function repoWithPlan(items: readonly ItemSpec[]): Promise<TestRepo> {
  const repo = await createTestRepo({ "README.md": "# app\n" });
  repos.push(repo);
  const config = {
    ...fakeConfigFile({
      verify: "true",
      maxAttempts: 1,
      agents: { planner: `${shellQuote(process.execPath)} ${shellQuote(PLANNER)}` },
      read: [dirname(PLANNER)],
    }),
    planner: { agent: "planner" },
  };
  await repo.commit("naruto config", { ".github/naruto.yml": JSON.stringify(config, null, 2) });
  await writeFile(join(repo.dir, ".git", "plan.json"), planText(items));
  return repo;
}

async function naruto(repo: TestRepo, argv: string[]) {
  const cli = fakeCli(repo.dir);
  const code = await main(argv, cli.io);
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

const KEYS = ["mission", "status", "verdict", "queue", "items", "sandbox"];
const ITEM_KEYS = ["id", "status", "attempts", "commit", "changed", "reason"];

describe("naruto run --json", () => {
  it("prints exactly the §13 object and exits 0 for an approved mission; status --json prints the same", async () => {
    const repo = await repoWithPlan([{ id: "a" }, { id: "b", after: ["a"] }]);
    const r = await naruto(repo, ["run", "--plan", ".git/plan.json", "--json"]);
    expect(r.code, r.stderr).toBe(0);

    const printed: unknown = JSON.parse(r.stdout);
    const ids = await createLocalMissionStore({ git: repo.git, repoDir: repo.dir }).list();
    expect(ids).toHaveLength(1);
    const stored = await createLocalMissionStore({ git: repo.git, repoDir: repo.dir }).load(ids[0] ?? "");
    if (!stored) throw new Error("the mission was not stored");
    expect(printed).toEqual(missionResult(stored.mission));
    expect(printed).toMatchObject({
      status: "done",
      verdict: "approve",
      queue: { branch: `naruto/${stored.mission.id}`, head: await repo.run("rev-parse", `naruto/${stored.mission.id}`) },
    });
    expect(Object.keys(Object(printed))).toEqual(KEYS);
    for (const item of missionResult(stored.mission).items) expect(Object.keys(item)).toEqual(ITEM_KEYS);
    // Progress goes to stderr with --json, so stdout is one JSON document.
    expect(r.stderr).toContain("integrated");

    const status = await naruto(repo, ["status", stored.mission.id, "--json"]);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toEqual(printed);
    const list = await naruto(repo, ["status", "--json"]);
    expect(JSON.parse(list.stdout)).toEqual([printed]);
    const human = await naruto(repo, ["status"]);
    expect(human.stdout).toContain(`${stored.mission.id}  done`);
    // One mission's status says what the agents ran in and where their logs are.
    const one = await naruto(repo, ["status", stored.mission.id]);
    expect(one.stdout).toContain(`  sandbox: ${stored.mission.sandbox}`);
    expect(one.stdout).toContain(
      `  logs: ${join(await realpath(join(repo.dir, ".git")), "naruto", "attempts", stored.mission.id)}/<item>/<attempt>/ (prompt.md, output.log, result.json)`,
    );
    const log = await readFile(join(repo.dir, ".git", "naruto", "attempts", stored.mission.id, "a", "1", "output.log"), "utf8");
    expect(log).toContain("wrote src/a/a.txt");
  });

  it("exits 1 when the verdict is not approve, still printing the object", async () => {
    const repo = await repoWithPlan([{ id: "rogue", agent: "out-of-scope" }, { id: "fine" }]);
    const r = await naruto(repo, ["run", "--plan", ".git/plan.json", "--json"]);
    expect(r.code).toBe(1);
    const printed = missionResult(await loadOnly(repo));
    expect(JSON.parse(r.stdout)).toEqual(printed);
    expect(printed.verdict).not.toBe("approve");
    expect(printed.items.map((i) => i.status)).toEqual(["out_of_scope", "integrated"]);
  });

  it("plans a --task with the planner agent from the config, then runs the plan", async () => {
    const repo = await repoWithPlan([]);
    const r = await naruto(repo, ["run", "--task", "add a and b", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const m = await loadOnly(repo);
    expect(m.task).toBe("add a and b");
    expect(m.plan_title).toBe("Planned by the fake planner");
    expect(m.items.map((i) => [i.id, i.status])).toEqual([
      ["a", "integrated"],
      ["b", "integrated"],
    ]);
  });

  it("refuses an invalid plan before making anything: exit 2, the error named, no mission, no branch", async () => {
    const repo = await repoWithPlan([]);
    await writeFile(join(repo.dir, ".git", "bad.yml"), "version: 1\ntitle: bad\nitems:\n  - { id: a, title: A, writes: [../x] }\n");
    const refs = await repo.run("for-each-ref", "--format=%(refname)");
    for (const args of [
      ["run", "--plan", ".git/bad.yml", "--json"],
      ["run", "--plan", ".git/bad.yml"],
    ]) {
      const r = await naruto(repo, args);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain('".." leaves the repository');
      expect(r.stderr).toContain("nothing was started");
    }
    expect(await repo.run("for-each-ref", "--format=%(refname)")).toBe(refs);
    expect(await createLocalMissionStore({ git: repo.git, repoDir: repo.dir }).list()).toEqual([]);
  });

  it("answers status for an unknown mission, and run without a plan or task, with exit 2", async () => {
    const repo = await repoWithPlan([{ id: "a" }]);
    const status = await naruto(repo, ["status", "m-nosuch", "--json"]);
    expect(status.code).toBe(2);
    expect(status.stderr).toContain("no mission m-nosuch");
    const r = await naruto(repo, ["run"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--plan");
  });
});

async function loadOnly(repo: TestRepo) {
  const store = createLocalMissionStore({ git: repo.git, repoDir: repo.dir });
  const [id] = await store.list();
  const stored = await store.load(id ?? "");
  if (!stored) throw new Error("no mission stored");
  return stored.mission;
}
