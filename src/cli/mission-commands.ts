/**
 * `naruto run`, `naruto resume`, `naruto status` and `naruto cancel`: the local driver behind a
 * command line. This file wires the real outside world (git, the clock, signals, the terminal).
 */
import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import { createGit, gitText, type Git } from "../git/index.ts";
import { createLocalMissionStore } from "../store/index.ts";
import { gitCommonDir } from "../engine/index.ts";
import { resumeLocalMission, runLocalMission, type LocalDeps, type RunRequest } from "../local/index.ts";
import { tidyAfterKilledRun } from "../local/index.ts";
import { leftoverBranchCount } from "../local/index.ts";
import { logProgress, terminalProgress, type Progress } from "../local/index.ts";
import { reportPaths, writeReports } from "../local/index.ts";
import { refreshLocalMission, type LocalRefresh } from "../local/index.ts";
import type { Mission } from "../mission/index.ts";
import { applyEvent } from "../mission/index.ts";
import { isMissionTerminal, keptPlace } from "../mission/index.ts";
import { missionResult } from "../report/index.ts";
import { EXIT, readUserFile, UsageError } from "./errors.ts";
import type { CliIO } from "./io.ts";
import { MissionNotFoundError } from "../mission/index.ts";
import type { SandboxMode } from "../config/index.ts";
import { loadRunOverrides } from "../local/index.ts";
import { defaultWorkRoot } from "../sandbox/index.ts";
import { createRedactor, secretValues } from "../redact/index.ts";

export interface RunOptions {
  readonly plan?: string;
  readonly task?: string;
  readonly agent?: string;
  readonly parallel?: number;
  readonly base?: string;
  readonly verify?: string;
  readonly sandbox?: SandboxMode;
  readonly workdir?: string;
  readonly read?: readonly string[];
  readonly login?: boolean;
  readonly json: boolean;
  readonly strict: boolean;
}

export async function runCommand(io: CliIO, options: RunOptions): Promise<number> {
  if (!options.plan && !options.task) throw new UsageError("naruto run needs --plan FILE or --task TEXT");
  const git = createGit({ env: io.env });
  const repoDir = await repoRoot(git, io.cwd);
  const planText = options.plan ? await readUserFile(io, options.plan, "the plan") : null;
  const request: RunRequest = {
    repoDir,
    planText,
    ...(options.plan ? { planFile: options.plan } : {}),
    task: options.task ?? null,
    baseRef: options.base ?? "HEAD",
    agentCommand: options.agent ?? null,
    parallel: options.parallel ?? null,
    verify: options.verify ?? null,
    strict: options.strict,
    sandbox: options.sandbox ?? null,
    workdir: options.workdir ?? null,
    agentRead: (options.read ?? []).map((p) => resolve(io.cwd, p)),
    login: options.login ?? false,
  };
  return withShutdown(io, (deps) => runLocalMission(deps, request), options.json, git, repoDir);
}

export async function resumeCommand(io: CliIO, id: string, json: boolean): Promise<number> {
  const git = createGit({ env: io.env });
  const repoDir = await repoRoot(git, io.cwd);
  const stored = await createLocalMissionStore({ git, repoDir }).load(id);
  if (!stored) throw new MissionNotFoundError(id);
  if (isMissionTerminal(stored.mission.status)) {
    const m = stored.mission;
    io.stderr(
      `mission ${id} has already ended (${m.status}${m.verdict ? `, verdict ${m.verdict.verdict}` : ""}): there is nothing to resume; \`naruto status ${id}\` shows it\n`,
    );
    if (json) io.stdout(`${JSON.stringify(missionResult(m), null, 2)}\n`);
    return exitCodeOf(m);
  }
  return withShutdown(io, (deps) => resumeLocalMission(deps, { repoDir, id }), json, git, repoDir);
}

/**
 * `naruto refresh ID`: the queue replayed onto the base branch as it is now, then the mission
 * driven to its verdict again. Exit 0 when there was nothing to refresh or the new verdict is
 * `approve`; 1 when the refresh could not be made (the new base is red) or the verdict is not.
 */
export async function refreshCommand(io: CliIO, id: string, options: { onto: string | null; json: boolean }): Promise<number> {
  const git = createGit({ env: io.env });
  const repoDir = await repoRoot(git, io.cwd);
  const said: { outcome: LocalRefresh | null } = { outcome: null };
  const code = await withShutdown(
    io,
    async (deps) => {
      const outcome = await refreshLocalMission(deps, { repoDir, id, onto: options.onto });
      said.outcome = outcome;
      io.stderr(`${outcome.message}\n`);
      return outcome.mission;
    },
    options.json,
    git,
    repoDir,
  );
  const { outcome } = said;
  if (outcome === null) return code;
  if (outcome.kind === "unchanged") return outcome.mission.verdict === null || outcome.mission.verdict.verdict === "approve" ? EXIT.ok : code;
  return outcome.kind === "halted" ? EXIT.no : code;
}

/** From how many leftover worker branches `naruto status` mentions `naruto clean`. */
const CLEAN_HINT_AT = 10;

export async function statusCommand(io: CliIO, id: string | undefined, json: boolean): Promise<number> {
  const git = createGit({ env: io.env });
  const repoDir = await repoRoot(git, io.cwd);
  const store = createLocalMissionStore({ git, repoDir });
  if (id) {
    const stored = await store.load(id);
    if (!stored) throw new MissionNotFoundError(id);
    io.stdout(json ? `${JSON.stringify(missionResult(stored.mission), null, 2)}\n` : describeMission(stored.mission, await gitCommonDir(git, repoDir)));
    return 0;
  }
  const missions = (await Promise.all((await store.list()).map((m) => store.load(m)))).flatMap((s) => (s ? [s.mission] : []));
  missions.sort((a, b) => b.created_at.localeCompare(a.created_at));
  if (json) {
    io.stdout(`${JSON.stringify(missions.map(missionResult), null, 2)}\n`);
  } else if (missions.length === 0) {
    io.stdout("no missions yet: start one with `naruto run --plan FILE` or `naruto demo`\n");
  } else {
    for (const m of missions)
      io.stdout(`${m.id}  ${m.status.padEnd(17)} ${(m.verdict?.verdict ?? "-").padEnd(15)} ${counts(m)}  ${m.created_at}  ${firstLine(m.task)}\n`);
    const leftover = await leftoverBranchCount(
      { git, repoDir },
      missions.filter((m) => isMissionTerminal(m.status)).map((m) => m.id),
    );
    if (leftover >= CLEAN_HINT_AT)
      io.stdout(
        `\n${leftover} worker branches of finished missions are left: \`naruto clean\` deletes those whose change is on the queue (\`--kept\` the rest)\n`,
      );
  }
  return 0;
}

export async function cancelCommand(io: CliIO, id: string): Promise<number> {
  const git = createGit({ env: io.env });
  const repoDir = await repoRoot(git, io.cwd);
  const store = createLocalMissionStore({ git, repoDir });
  const r = await applyEvent(store, id, { type: "cancelled", at: new Date().toISOString(), by: io.env.USER ?? null });
  const commonDir = await gitCommonDir(git, repoDir);
  // A running `naruto run` writes it too; a mission whose runner is gone has only this one.
  if (!r.duplicate) await writeReports(commonDir, r.mission, createRedactor({ secrets: secretValues({ env: io.env }) }));
  // A live run stops its agents itself; a run that was killed left them running.
  const overrides = await loadRunOverrides(commonDir, id);
  const workRoot = overrides.workdir ?? defaultWorkRoot(io.env, { override: null, cwd: io.cwd });
  const tidied = await tidyAfterKilledRun({ git, repoDir, commonDir, mission: r.mission, workRoot, now: () => new Date() });
  const lines = [r.duplicate ? `mission ${id} had already ended (${r.mission.status})` : `mission ${id} cancelled`];
  if (tidied === null) lines[0] += "; the running `naruto run` stops its agents within seconds";
  else if (tidied.stopped.length > 0)
    lines[0] += `; stopped ${tidied.stopped.length} process${tidied.stopped.length === 1 ? "" : "es"} its killed run had left running`;
  for (const [item, work] of tidied?.work ?? [])
    lines.push(
      `  ${item}: ${work.kind === "kept" ? `its unfinished work is kept at ${keptPlace(work)}` : `its unfinished work could not be kept: ${work.why}`}`,
    );
  io.stdout(`${lines.join("\n")}\n`);
  return 0;
}

/**
 * How long a run may take to stop once told to (a signal, a cancel): its agents get SIGTERM, then
 * SIGKILL after 5 s, and their work is kept. Past this, whatever still holds the run up (an agent
 * that left its folder in a state naruto cannot read quickly), naruto exits: `naruto resume`
 * keeps the work its directories hold.
 */
export const STOP_DEADLINE_MS = 7_000;

/** Runs a mission with Ctrl-C wired to a clean, resumable stop; prints the outcome. */
async function withShutdown(io: CliIO, go: (deps: LocalDeps) => Promise<Mission>, json: boolean, git: Git, repoDir: string): Promise<number> {
  const shutdown = new AbortController();
  let started: string | null = null;
  const resumeHint = () => (started === null ? "" : `; the mission can be resumed with \`naruto resume ${started}\`, which keeps what its agents did`);
  let deadline: NodeJS.Timeout | null = null;
  const exit = io.exit;
  const stopWithin = (ms: number) => {
    if (exit === undefined) return;
    deadline ??= setTimeout(() => {
      io.stderr(`\nnaruto: stopping took more than ${Math.round(ms / 1000)} s: exiting now${resumeHint()}\n`);
      exit(EXIT.no);
    }, ms);
    // The deadline never keeps a run that ended on time alive.
    deadline.unref();
  };
  const onSignal = () => {
    if (shutdown.signal.aborted && exit !== undefined) {
      // Asked twice: at once.
      io.stderr(`\nnaruto: stopping now${resumeHint()}\n`);
      exit(EXIT.no);
    }
    if (shutdown.signal.aborted) return;
    const resume = started === null ? "" : `; the mission can be resumed with \`naruto resume ${started}\``;
    io.stderr(`\nstopping: agents are being stopped, their unfinished work is kept${resume}\n`);
    shutdown.abort();
    stopWithin(STOP_DEADLINE_MS);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const now = () => new Date();
  const progress: Progress = json ? logProgress(io.stderr, now) : io.isTTY ? terminalProgress(io.stdout, now) : logProgress(io.stdout, now);
  try {
    const mission = await go({
      git: createGit({ env: io.env }),
      env: io.env,
      now,
      randomId,
      progress,
      shutdown: shutdown.signal,
      nodePath: process.execPath,
      cwd: io.cwd,
      onMission: (id) => {
        started = id;
      },
      onCancelled: () => stopWithin(STOP_DEADLINE_MS),
    });
    progress.close();
    const paths = reportPaths(await gitCommonDir(git, repoDir), mission.id);
    if (json) io.stdout(`${JSON.stringify(missionResult(mission), null, 2)}\n`);
    else io.stdout(summary(mission, paths.markdown));
    return exitCodeOf(mission);
  } finally {
    progress.close();
    if (deadline !== null) clearTimeout(deadline);
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

/** 0 when the mission ended with verdict approve, else 1 (see errors.ts). */
function exitCodeOf(m: Mission): number {
  return m.verdict?.verdict === "approve" ? EXIT.ok : EXIT.no;
}

function summary(m: Mission, report: string): string {
  const lines = [
    "",
    `mission ${m.id}: ${m.status}${m.verdict ? `, verdict ${m.verdict.verdict}` : ""}${m.reason && m.reason !== m.status ? ` (${m.reason})` : ""}`,
    `  items: ${counts(m)}`,
    `  queue: ${m.queue.branch} at ${m.queue.head.slice(0, 12)} (${m.queue.verify_runs} verify run${m.queue.verify_runs === 1 ? "" : "s"}) — review it with \`git log ${m.queue.branch}\``,
    `  report: ${report}`,
  ];
  const moved = m.queue.base_moved;
  if (moved !== null && moved.commit !== m.base.commit)
    lines.push(
      `  base moved: ${m.base.ref} is at ${moved.commit.slice(0, 12)}, past the queue's base ${m.base.commit.slice(0, 12)}: naruto refresh ${m.id} replays it`,
    );
  if (m.status !== "done" && m.status !== "cancelled" && m.status !== "failed") lines.push(`  resume with: naruto resume ${m.id}`);
  return `${lines.join("\n")}\n`;
}

function describeMission(m: Mission, commonDir: string): string {
  const rows = m.items.map(
    (i) =>
      `  ${i.id.padEnd(24)} ${i.status.padEnd(13)} attempts ${i.attempts.length}  ${i.commit ? i.commit.slice(0, 12) : ""}${i.reason ? `  ${firstLine(i.reason)}` : ""}`,
  );
  const logs = `  logs: ${join(commonDir, "naruto", "attempts", m.id)}/<item>/<attempt>/ (prompt.md, output.log, result.json)`;
  const sandbox = m.sandbox === null ? [] : [`  sandbox: ${m.sandbox}`];
  const tampering = m.tampering.length === 0 ? [] : [`  tampering: ${m.tampering.length} change(s) found; see the report's containment section`];
  return `${[summary(m, reportPaths(commonDir, m.id).markdown).trimStart(), ...sandbox, ...tampering, logs, ...rows].join("\n")}\n`;
}

function counts(m: Mission): string {
  const integrated = m.items.filter((i) => i.status === "integrated").length;
  return `${integrated}/${m.items.length} integrated`;
}

function firstLine(text: string): string {
  return (text.split("\n")[0] ?? "").slice(0, 100);
}

/** The top folder of the repository `cwd` is in; outside one, a UsageError. */
export async function repoRoot(git: Git, cwd: string): Promise<string> {
  try {
    return await gitText(git, { args: ["rev-parse", "--show-toplevel"], cwd });
  } catch {
    throw new UsageError(`${cwd} is not inside a git repository: naruto runs missions on a git repository`);
  }
}

function randomId(): string {
  return randomBytes(4).readUInt32BE(0).toString(36).padStart(6, "0").slice(-6);
}
