/**
 * The bundled example that `naruto demo` runs (examples/demo/): its plan is valid with exactly
 * the one conflict the demo is about, its config loads, its project is green, and carrying out
 * every item's prompt with the demo agent, one item after another in dependency order, gives
 * a project whose tests still pass, each item changing only what it owns.
 */
import { spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { DEMO_AGENT_PATH } from "../src/agent/demo-agent.ts";
import { buildPrompt } from "../src/agent/prompt.ts";
import { unsandboxed, workDirAt } from "./support/sandbox.ts";
import { demoConfigText } from "../src/cli/demo-command.ts";
import { runAgent } from "../src/agent/run-agent.ts";
import { shellQuote } from "../src/agent/shell-quote.ts";
import { loadConfig } from "../src/config/index.ts";
import { checkPlan, isCoveredBy, repoPathOf, type CheckResult, type Plan, type PlanItem } from "../src/plan/index.ts";
import { createTestRepo, type TestRepo } from "./support/git-repo.ts";

const EXAMPLE = fileURLToPath(new URL("../examples/demo/", import.meta.url));
const PROJECT = join(EXAMPLE, "project");

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function checkedPlan(): Promise<CheckResult & { plan: Plan }> {
  const result = checkPlan(await readFile(join(EXAMPLE, "plan.yml"), "utf8"));
  if (result.plan === null) throw new Error(`the demo plan is invalid: ${JSON.stringify(result.errors)}`);
  return { ...result, plan: result.plan };
}

/** A throwaway repository whose first commit is the example project. */
async function projectRepo(): Promise<TestRepo> {
  const files: Record<string, Buffer> = {};
  for (const entry of await readdir(PROJECT, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = join(entry.parentPath, entry.name);
    files[full.slice(PROJECT.length + 1)] = await readFile(full);
  }
  const repo = await createTestRepo(files);
  cleanups.push(() => repo.remove());
  return repo;
}

/** Runs a shell command the way naruto runs `verify` commands; never throws for a failure. */
function sh(command: string, cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    // A clean environment: vitest's own variables must not change how `node --test` behaves.
    const child = spawn("sh", ["-c", command], { cwd, env: { PATH: process.env.PATH ?? "", HOME: tmpdir() }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

/** Carries out one item with the demo agent, started as naruto starts agents (config command, prompt file). */
async function runItem(repo: TestRepo, item: PlanItem, task: string, command: string): Promise<void> {
  const workDir = await workDirAt(repo.dir);
  cleanups.push(() => workDir.remove());
  const agent = await runAgent({
    command,
    sandbox: unsandboxed(),
    workDir,
    prompt: buildPrompt({ task, item }),
    env: { PATH: process.env.PATH },
    allowEnv: [],
    network: true,
    mission: "m-demo",
    item: item.id,
    attempt: 1,
    writes: item.writes,
    timeoutMs: 60_000,
  });
  expect(agent.outcome, `${item.id}: ${agent.output}`).toBe("exited");
  expect(agent.result?.summary).not.toMatch(/^(failed|no instructions)/);
}

/** Paths changed since the last commit, from `git status --porcelain -z` (both sides of a rename). */
async function changedPaths(repo: TestRepo): Promise<string[]> {
  const fields = (await repo.run("status", "--porcelain", "-z", "--untracked-files=all")).split("\0").filter((f) => f !== "");
  const paths: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    paths.push(field.slice(3));
    if (field[0] === "R" || field[0] === "C") paths.push(fields[++i]!);
  }
  return paths;
}

/** Each item's dependencies: the declared ones, and with `added` also the planner's edges. */
function dependencies(result: CheckResult, added: boolean): Map<string, readonly string[]> {
  return new Map(result.items.map((item) => [item.id, added ? [...item.after, ...item.added_after] : item.after]));
}

/** Everything `id` waits for, directly or through other items. */
function waitsFor(deps: Map<string, readonly string[]>, id: string, into = new Set<string>()): Set<string> {
  for (const dep of deps.get(id) ?? []) if (!into.has(dep)) waitsFor(deps, dep, into.add(dep));
  return into;
}

/** Every item of `order` comes after everything it waits for. */
function respectsOrder(order: readonly string[], deps: Map<string, readonly string[]>): boolean {
  return order.every((id, at) => [...waitsFor(deps, id)].every((dep) => order.includes(dep) && order.indexOf(dep) < at));
}

/** The stable topological order: at each step, the first item in plan order whose dependencies are placed. */
function stableOrder(ids: readonly string[], deps: Map<string, readonly string[]>): string[] {
  const order: string[] = [];
  while (order.length < ids.length) {
    const next = ids.find((id) => !order.includes(id) && (deps.get(id) ?? []).every((dep) => order.includes(dep)));
    if (next === undefined) throw new Error("the plan has a cycle");
    order.push(next);
  }
  return order;
}

/** The items before `id` in `order` are exactly what it waits for: it runs with nothing else integrated. */
function runsOnItsDependenciesAlone(order: readonly string[], deps: Map<string, readonly string[]>, id: string): boolean {
  const before = order.slice(0, order.indexOf(id));
  const needed = waitsFor(deps, id);
  return before.length === needed.size && before.every((dep) => needed.has(dep));
}

/**
 * The order naruto integrates in when one item runs at a time: the stable topological order
 * (added edges included), which the first simulation follows.
 */
const QUEUE_ORDER = ["validate-item", "restock", "money-parse", "stock-report", "csv-import", "report-format", "cli", "docs"];
/**
 * The second simulation: the conflicting pair the other way round (their edits must not depend
 * on which lands first), and csv-import and cli each on their declared dependencies alone.
 */
const SWAPPED_ORDER = ["money-parse", "csv-import", "stock-report", "report-format", "cli"];

/**
 * Carries out every item in `order`, committing each as its checkpoint, and then runs the whole
 * test suite. Each item's changes must stay inside its writes and pass its own verify, and the
 * tests it wrote must pass right then: a test that needs an item it does not wait for fails here.
 * (Running the whole suite after every item would say a little more, at several times the cost.)
 */
async function simulate(order: readonly string[]): Promise<TestRepo> {
  const { plan } = await checkedPlan();
  const config = loadConfig(await demoConfigText());
  if (!config.ok) throw new Error("the demo config does not load");
  const repo = await projectRepo();
  for (const id of order) {
    const item = plan.items.find((i) => i.id === id)!;
    await runItem(repo, item, plan.title, config.config.agents.default!.command);
    const changed = await changedPaths(repo);
    expect(changed, `${id} changes something`).not.toEqual([]);
    expect(
      changed.filter((path) => !isCoveredBy(repoPathOf(path), item.writes)),
      `${id} stays in its writes`,
    ).toEqual([]);
    if (item.verify !== null) expect(await sh(item.verify, repo.dir), `${id} verify`).toMatchObject({ code: 0 });
    const tests = changed.filter((path) => path.endsWith(".test.js"));
    if (tests.length > 0) expect(await sh(`node --test ${tests.join(" ")}`, repo.dir), `${id}'s tests`).toMatchObject({ code: 0 });
    await repo.commit(id);
  }
  const suite = await sh("node --test", repo.dir);
  expect(suite, suite.output).toMatchObject({ code: 0 });
  return repo;
}

describe("the demo plan (examples/demo/plan.yml)", () => {
  it("is valid and has exactly one conflict, which the planner orders with an added edge", async () => {
    const result = await checkedPlan();
    expect(result.errors).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.proof?.ok).toBe(true);
    expect(result.conflicts).toEqual([{ a: "stock-report", b: "csv-import", path: "src/index.js", order: "added" }]);
    expect(result.items.filter((item) => item.added_after.length > 0)).toEqual([{ id: "csv-import", after: ["money-parse"], added_after: ["stock-report"] }]);
  });

  it("has about 8 items with estimates, and a chain where each item builds on the one before", async () => {
    const { plan } = await checkedPlan();
    expect(plan.items).toHaveLength(8);
    // Every item states its estimate (the default of 1 unit would make the timeline flat).
    const itemTexts = (await readFile(join(EXAMPLE, "plan.yml"), "utf8")).split(/^ {2}- id: /m).slice(1);
    expect(itemTexts).toHaveLength(8);
    expect(itemTexts.filter((text) => !/^ {4}estimate: \d+m$/m.test(text))).toEqual([]);
    const afterOf = (id: string) => plan.items.find((item) => item.id === id)?.after;
    expect(afterOf("report-format")).toContain("stock-report");
    expect(afterOf("cli")).toContain("report-format");
    expect(afterOf("docs")).toContain("cli");
  });

  it("lists the orders the simulation uses as valid orders of its items", async () => {
    const result = await checkedPlan();
    const declared = dependencies(result, false);
    const all = dependencies(result, true);
    expect(
      stableOrder(
        result.plan.items.map((item) => item.id),
        all,
      ),
    ).toEqual(QUEUE_ORDER);
    expect(respectsOrder(SWAPPED_ORDER, declared)).toBe(true);
    expect(respectsOrder(SWAPPED_ORDER, all)).toBe(false);
    expect(runsOnItsDependenciesAlone(SWAPPED_ORDER, declared, "csv-import")).toBe(true);
    expect(runsOnItsDependenciesAlone(SWAPPED_ORDER, declared, "cli")).toBe(true);
  });
});

describe("the demo config (examples/demo/naruto.yml)", () => {
  it("loads once the demo agent's path replaces the placeholder", async () => {
    expect(await readFile(join(EXAMPLE, "naruto.yml"), "utf8")).toContain("node {{demo_agent}}");
    const result = loadConfig(await demoConfigText());
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(result.config.agents.default?.command).toBe(`node ${shellQuote(DEMO_AGENT_PATH)}`);
    // What the demo sets; the defaults of the rest are load-config.test.ts's.
    expect(result.config.queue).toMatchObject({ verify: "node --test", batch: 4 });
    expect(result.config.agents.default?.read).toEqual([dirname(DEMO_AGENT_PATH)]);
    expect(result.config.limits.max_parallel).toBe(4);
  });
});

describe("the demo project (examples/demo/project)", () => {
  it("is green before any item runs", async () => {
    const repo = await projectRepo();
    const run = await sh("node --test", repo.dir);
    expect(run, run.output).toMatchObject({ code: 0 });
    expect(run.output).toMatch(/# fail 0/);
  });

  it("stays green when the demo agent carries out every item in the queue's order", async () => {
    const repo = await simulate(QUEUE_ORDER);
    const index = await readFile(join(repo.dir, "src/index.js"), "utf8");
    expect(index.endsWith('export * from "./report.js";\nexport * from "./csv.js";\n')).toBe(true);
    const cli = await sh("node bin/inventory.js report data/stock.csv", repo.dir);
    expect(cli.output).toMatch(/^Total value: 81\.00$/m);
  });

  it("ends green with the conflicting pair integrated the other way round", async () => {
    const repo = await simulate(SWAPPED_ORDER);
    const index = await readFile(join(repo.dir, "src/index.js"), "utf8");
    expect(index.endsWith('export * from "./csv.js";\nexport * from "./report.js";\n')).toBe(true);
  });
});
