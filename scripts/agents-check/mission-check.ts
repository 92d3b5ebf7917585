/**
 * Runs one CLI's mission the way a user does (`naruto run --plan FILE --json` in the scratch
 * repository, the sandbox as configured: `auto`) and compares what naruto made of it with what
 * each case expects: the item's status, the queue's content, the gate's reason, the usage the
 * scripted server reported (exact, in the mission's record and its report), and a user's
 * repository that did not move.
 */
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { readMissionVersion } from "../../src/store/git-store.ts";
import { createGit } from "../../src/git/run-git.ts";
import { formatUsage } from "../../src/report/format.ts";
import { expectationFor, type CheckCase } from "./cases.ts";
import { repoState, type Scratch } from "./scratch.ts";
import { turnsOf } from "./script.ts";
import type { CliDriver } from "./types.ts";

const run = promisify(execFile);

const NARUTO = join(import.meta.dirname, "..", "..", "bin", "naruto.js");

export interface MissionOutcome {
  /** What is wrong, one line each; empty when the CLI passed. */
  readonly problems: readonly string[];
  /** What a failure's reader needs: the mission, the sandbox, naruto's own output. */
  readonly details: readonly string[];
}

interface ResultItem {
  readonly id: string;
  readonly status: string;
  readonly changed: readonly string[];
  readonly reason: string | null;
}

interface MissionJson {
  readonly mission: string;
  readonly status: string;
  readonly queue: { readonly branch: string };
  readonly items: readonly ResultItem[];
  readonly sandbox: string | null;
}

interface RecordedAttempt {
  readonly status: string;
  readonly cost_usd: number | null;
  readonly tokens_in: number | null;
  readonly tokens_out: number | null;
  readonly model: string | null;
  readonly reason: string | null;
}

export async function checkMission(input: {
  readonly scratch: Scratch;
  readonly driver: CliDriver;
  readonly cases: readonly CheckCase[];
  readonly env: NodeJS.ProcessEnv;
}): Promise<MissionOutcome> {
  const { scratch, driver, cases } = input;
  const before = await repoState(scratch.repo);
  const naruto = await run(process.execPath, [NARUTO, "run", "--plan", scratch.planFile, "--json"], {
    cwd: scratch.repo,
    env: input.env,
    maxBuffer: 64 * 1024 * 1024,
    timeout: 15 * 60_000,
  }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: error.code ?? 1,
      stdout: error.stdout ?? "",
      stderr: error.stderr ?? String(error),
    }),
  );
  let result: MissionJson;
  try {
    result = JSON.parse(naruto.stdout) as MissionJson;
  } catch {
    return { problems: [`naruto run printed no result (exit ${naruto.code}): ${lastLine(naruto.stderr)}`], details: [naruto.stderr.trim()] };
  }
  const git = async (...args: string[]) => (await run("git", args, { cwd: scratch.repo, maxBuffer: 64 * 1024 * 1024 })).stdout;
  const commonDir = join(scratch.repo, (await git("rev-parse", "--git-common-dir")).trim());
  const details = [
    `mission ${result.mission} (${result.status}), sandbox: ${result.sandbox ?? "not recorded"}`,
    `report: ${join(commonDir, "naruto", "missions", result.mission, "report.md")}`,
  ];
  const problems: string[] = [];

  const after = await repoState(scratch.repo);
  if (after !== before) problems.push(`the user's repository moved:\n  before ${before.replaceAll("\n", "\n  ")}\n  after  ${after.replaceAll("\n", "\n  ")}`);

  // The stored mission as naruto's local store lays it out (one record per item): read through it.
  const version = (await git("rev-parse", `refs/naruto/missions/${result.mission}`)).trim();
  const recorded = (await readMissionVersion(createGit(), scratch.repo, version)) as unknown as { items: { id: string; attempts: RecordedAttempt[] }[] };
  const report = await readFile(join(commonDir, "naruto", "missions", result.mission, "report.md"), "utf8");
  let totals = { costUsd: 0 as number | null, tokensIn: 0, tokensOut: 0 };

  for (const c of cases) {
    const item = result.items.find((i) => i.id === c.id);
    if (item === undefined) {
      problems.push(`${c.id}: not in the mission's result`);
      continue;
    }
    const attempt = recorded.items.find((i) => i.id === c.id)?.attempts.at(-1);
    const why = item.reason === null ? "" : ` (${oneLine(item.reason)})`;
    const expect = expectationFor(c, driver.name);
    // An item whose agent changed nothing is `failed`; its attempt says `no_changes`.
    const status = item.status === "failed" && attempt?.status === "no_changes" ? "no_changes" : item.status;
    if (status !== expect.status) problems.push(`${c.id}: ${status}${why}, expected ${expect.status}`);
    else if (expect.status === "integrated") {
      const paths = Object.keys(expect.files).sort();
      if (JSON.stringify([...item.changed].sort()) !== JSON.stringify(paths))
        problems.push(`${c.id}: changed ${item.changed.join(", ") || "nothing"}, expected ${paths.join(", ")}`);
      for (const [path, content] of Object.entries(expect.files)) {
        const onQueue = await git("show", `${result.queue.branch}:${path}`).catch(() => null);
        if (onQueue !== content)
          problems.push(
            `${c.id}: the queue holds ${onQueue === null ? "no" : JSON.stringify(onQueue.slice(0, 80))} ${path}, expected ${JSON.stringify(content)}`,
          );
      }
    } else if (expect.status === "out_of_scope" && !(item.reason ?? "").includes(expect.path)) {
      problems.push(`${c.id}: the reason does not name ${expect.path}${why}`);
    } else if (expect.status === "failed" && !(item.reason ?? "").includes(expect.reason)) {
      problems.push(`${c.id}: the reason does not say "${expect.reason}"${why}`);
    }

    // Usage: each item ran once (max_attempts 1), so its one attempt carries the scenario's.
    const turns = turnsOf(c.scenario);
    const tokens = driver.expectedTokens?.(c.scenario.usage, turns) ?? {
      in: turns * (c.scenario.usage.input + (c.scenario.usage.cacheRead ?? 0)),
      out: turns * c.scenario.usage.output,
    };
    const cost = driver.expectedCostUsd(c.scenario.usage, turns);
    if (attempt === undefined) {
      problems.push(`${c.id}: no attempt recorded`);
      continue;
    }
    if (attempt.tokens_in !== tokens.in || attempt.tokens_out !== tokens.out) {
      problems.push(`${c.id}: recorded ${attempt.tokens_in} tokens in, ${attempt.tokens_out} out; the server reported ${tokens.in} in, ${tokens.out} out`);
    }
    if (!sameCost(attempt.cost_usd, cost)) problems.push(`${c.id}: recorded a cost of ${attempt.cost_usd ?? "none"}, expected ${cost ?? "none"}`);
    const shown = formatUsage({ costUsd: cost, tokensIn: tokens.in, tokensOut: tokens.out });
    if (!report.includes(shown)) problems.push(`${c.id}: the report does not show "${shown}"`);
    totals = {
      costUsd: cost === null || totals.costUsd === null ? null : totals.costUsd + cost,
      tokensIn: totals.tokensIn + tokens.in,
      tokensOut: totals.tokensOut + tokens.out,
    };
  }
  const total = `Total reported by the agents: ${formatUsage(totals)}.`;
  if (!report.includes(total)) problems.push(`the report does not say "${total}"`);
  if (problems.length > 0) details.push(`naruto run exited ${naruto.code}; its standard error:\n${naruto.stderr.trim()}`);
  return { problems, details };
}

/** The CLI prices with floating point: equal to a millionth of a cent. */
function sameCost(recorded: number | null, expected: number | null): boolean {
  if (recorded === null || expected === null) return recorded === expected;
  return Math.abs(recorded - expected) < 1e-8;
}

function firstLine(text: string): string {
  const line = text.split("\n")[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** A reason with its output tail, on one line: the FAIL line should say why without the details. */
function oneLine(text: string): string {
  const line = text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "")
    .join(" | ");
  return line.length > 400 ? `${line.slice(0, 400)}…` : line;
}

function lastLine(text: string): string {
  return firstLine(text.trim().split("\n").at(-1) ?? "");
}
