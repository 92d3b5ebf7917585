/**
 * `sweep` (on a schedule, write token, no agent): what no event will do. For each mission under
 * way: the clock ticks (attempts past `item_timeout` time out and their runs are cancelled; the
 * engine retries them); an attempt whose run finished without its result reaching the mission
 * (its publish job was lost) ends as `interrupted` and starts again; checkpoints left waiting
 * get an integrate run; a plan or review run that vanished is dispatched again. Worker branches
 * of missions finished longer ago than the retention are deleted. Ended missions are remembered
 * (sweep-memory.ts): a later sweep does not load them again. Then the schedules of the
 * config that fired since shortly before start their missions (src/github-driver/schedules.ts),
 * and `/naruto` comments of the last hour that nobody answered (the App took them and crashed
 * before handling them) are handled (src/github-driver/missed-commands.ts).
 */
import { GitHubError, RefExistsError } from "../../github/index.ts";
import { GITHUB_STATE_REF_PREFIX, issueIndexPrefix } from "../../store/index.ts";
import { carryOut } from "../../github-driver/index.ts";
import { WORKFLOW_BOT } from "../../github-driver/index.ts";
import { pullRequestHeadVia } from "../../github-driver/index.ts";
import { answerMissedCommands } from "../../github-driver/index.ts";
import { readLegJobs } from "../../github-driver/index.ts";
import { runIdOf } from "../../github-driver/index.ts";
import { message } from "../../github-driver/index.ts";
import { startScheduledMissions } from "../../github-driver/index.ts";
import type { Mission } from "../../mission/index.ts";
import { IllegalEventError } from "../../mission/index.ts";
import type { MissionCommand, MissionEvent } from "../../mission/index.ts";
import { isMissionTerminal } from "../../mission/index.ts";
import { applyEvent, applyEvents } from "../../mission/index.ts";
import type { ModeDeps } from "../deps.ts";
import { recallSweep, rememberSweep, settled, type EndedMission, type SweepMemory } from "./sweep-memory.ts";

/** Worker branches of a finished mission are kept this long (its queue branch and PR stay). */
export const BRANCH_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** A mission this quiet with checkpoints still waiting has lost its integrate run. */
const QUIET_MS = 10 * 60 * 1000;

export async function sweepMode(deps: ModeDeps, options: { retentionMs?: number; scheduleWindowMs?: number } = {}): Promise<void> {
  const retentionMs = options.retentionMs ?? BRANCH_RETENTION_MS;
  // The state refs with their versions (the index refs `by-issue/…` have slashes; mission ids never do).
  const versions = new Map(
    (await deps.github.listRefs(GITHUB_STATE_REF_PREFIX))
      .map((r) => [r.ref.slice(GITHUB_STATE_REF_PREFIX.length), r.sha] as const)
      .filter(([id]) => id !== "" && !id.includes("/")),
  );
  const ids = [...versions.keys()];
  const memory = await recallSweep(deps.github).catch((): SweepMemory => ({ ended: new Map(), text: null }));
  const ended = new Map<string, EndedMission>();
  const lines: string[] = [];
  for (const id of ids) {
    // Ended, at the version the last sweep saw, with nothing left to do until its retention passes.
    const known = settled(memory, id, versions.get(id), deps.now(), retentionMs);
    if (known !== null) {
      ended.set(id, known);
      continue;
    }
    try {
      const swept = await sweepMission(deps, id, retentionMs);
      if (swept.ended !== null) ended.set(id, swept.ended);
      if (swept.line !== null) lines.push(`- \`${id}\`: ${swept.line}`);
    } catch (error) {
      // One broken mission must not stop the sweep of the others.
      deps.log.warning(`sweep of ${id} failed: ${message(error)}`);
      lines.push(`- \`${id}\`: failed: ${message(error).split("\n")[0] ?? ""}`);
    }
  }
  // The runs are on the default branch (`GITHUB_REF_NAME` of a scheduled run): its config counts.
  const scheduled = await startScheduledMissions(deps, {
    defaultBranch: deps.ref,
    ...(options.scheduleWindowMs === undefined ? {} : { windowMs: options.scheduleWindowMs }),
  }).catch((error: unknown) => {
    deps.log.warning(`schedules not started: ${message(error)}`);
    return [`schedules not started: ${message(error).split("\n")[0] ?? ""}`];
  });
  for (const line of scheduled) deps.log.info(line);
  // Commands the App took (answered 202) and then lost, in a crash before handling them.
  const selfLogins = [...new Set([deps.botLogin ?? WORKFLOW_BOT, WORKFLOW_BOT])];
  const missed = await answerMissedCommands({ ...deps, selfLogins, pullRequestHead: pullRequestHeadVia(deps.github) }, { defaultBranch: deps.ref }).catch(
    (error: unknown) => {
      deps.log.warning(`unanswered commands not looked for: ${message(error)}`);
      return [];
    },
  );
  for (const m of missed)
    scheduled.push(
      `#${m.issue}: unanswered /naruto comment ${m.comment} handled (${m.outcome.kind === "mission" ? `mission ${m.outcome.mission}` : m.outcome.kind})`,
    );
  await rememberSweep(deps.github, memory, ended).catch((error: unknown) =>
    deps.log.warning(`what the sweep found ended is not remembered: ${message(error)}`),
  );
  const scheduleLines = scheduled.length === 0 ? "" : `\n${scheduled.map((l) => `- ${l}`).join("\n")}\n`;
  await deps.log.summary(`### naruto sweep\n\n${ids.length} mission(s)\n${lines.join("\n")}\n${scheduleLines}`);
}

/** What the sweep of one mission did (`line`), and, for an ended one, what to remember of it. */
interface Swept {
  readonly line: string | null;
  readonly ended: EndedMission | null;
}

async function sweepMission(deps: ModeDeps, id: string, retentionMs: number): Promise<Swept> {
  const stored = await deps.store.load(id);
  if (stored === null) return { line: null, ended: null };
  const now = deps.now();
  if (isMissionTerminal(stored.mission.status)) {
    const due = now.getTime() - Date.parse(stored.mission.updated_at) >= retentionMs;
    return {
      line: due ? await deleteOldBranches(deps, stored.mission) : null,
      ended: { version: stored.version, updated_at: stored.mission.updated_at, cleaned: due },
    };
  }
  return { line: await sweepUnderWay(deps, id, stored.mission, stored.version, now), ended: null };
}

async function sweepUnderWay(deps: ModeDeps, id: string, found: Mission, version: string, now: Date): Promise<string | null> {
  let mission = found;
  await indexOlderMission(deps, mission, version);

  const commands: MissionCommand[] = [];
  const notes: string[] = [];
  const apply = async (event: MissionEvent) => {
    try {
      const result = await applyEvent(deps.store, id, event);
      if (!result.duplicate) notes.push(event.type === "attempt_finished" ? `${event.item}#${event.attempt} interrupted` : event.type);
      mission = result.mission;
      commands.push(...result.commands);
    } catch (error) {
      if (!(error instanceof IllegalEventError)) throw error;
      deps.log.warning(`${id}: ${event.type} not applied: ${error.message}`);
    }
  };
  // Legs a runner took since they were dispatched, and legs whose job ended: their clocks start
  // when their jobs did and stop when they ended, so the tick times out only what ran too long,
  // waited too long for a runner, or (its agent gone) waited too long for its result.
  const legs = await readLegJobs(deps.github, mission).catch((error: unknown) => {
    deps.log.warning(`${id}: the jobs' starts and ends were not read (${message(error)}): attempts keep the limits they had`);
    return [];
  });
  if (legs.length > 0) {
    const result = await applyEvents(deps.store, id, legs);
    mission = result.mission;
    commands.push(...result.commands);
    const applied = (type: MissionEvent["type"]) => result.outcomes.filter((o, i) => o.kind === "applied" && legs[i]?.type === type).length;
    if (applied("attempt_started") > 0) notes.push(`${applied("attempt_started")} attempt(s) found started`);
    if (applied("agent_exited") > 0) notes.push(`${applied("agent_exited")} attempt(s) found with their job ended`);
  }
  await apply({ type: "tick", at: now.toISOString() });
  // Attempts started together share a run (carry-out.ts): each run is asked about once.
  const runs = new Map<number, Promise<{ status: string | null; conclusion: string | null }>>();
  const runOf = (runId: number): Promise<{ status: string | null; conclusion: string | null }> => {
    let run = runs.get(runId);
    if (run === undefined) {
      run = deps.github.getRun({ runId }).catch((error: unknown) => {
        // A run GitHub no longer knows (deleted, expired) has ended as surely as a finished one.
        if (error instanceof GitHubError && error.status === 404) return { status: "completed", conclusion: "deleted" as string | null };
        throw error;
      });
      runs.set(runId, run);
    }
    return run;
  };
  const lost: MissionEvent[] = [];
  for (const item of mission.items) {
    const last = item.attempts.at(-1);
    const runId = runIdOf(last?.runner ?? null);
    if (!last || runId === null || (last.status !== "dispatched" && last.status !== "running")) continue;
    const run = await runOf(runId);
    if (run.status !== "completed") continue;
    const reason = `its run ended (${run.conclusion ?? "no conclusion"}) without its result reaching the mission`;
    lost.push({ type: "attempt_finished", at: deps.now().toISOString(), item: item.id, attempt: last.n, outcome: { kind: "interrupted", reason } });
  }
  // A lost run of a batch leaves many attempts: one save for all of them.
  if (lost.length > 0) {
    const result = await applyEvents(deps.store, id, lost);
    mission = result.mission;
    commands.push(...result.commands);
    result.outcomes.forEach((o, i) => {
      const event = lost[i];
      if (event?.type !== "attempt_finished") return;
      if (o.kind === "applied") notes.push(`${event.item}#${event.attempt} interrupted`);
      if (o.kind === "illegal") deps.log.warning(`${id}: ${event.type} not applied: ${o.error.message}`);
    });
  }
  const quiet = now.getTime() - Date.parse(mission.updated_at);
  if (quiet > QUIET_MS && mission.items.some((i) => i.attempts.at(-1)?.status === "integrating")) {
    commands.push({ type: "integrate", checkpoints: [] });
    notes.push("integrate run for waiting checkpoints");
  }
  if (mission.status === "planning" || mission.status === "reviewing") {
    if (mission.status === "planning" && quiet > mission.settings.mission_timeout_ms) {
      await apply({ type: "planning_failed", at: now.toISOString(), reason: "no plan arrived within the mission's time limit" });
    } else if (quiet > mission.settings.item_timeout_ms) {
      commands.push(mission.status === "planning" ? { type: "plan" } : { type: "review" });
      notes.push(`${mission.status === "planning" ? "plan" : "review"} dispatched again`);
    }
  }
  if (commands.length === 0 && notes.length === 0) return null;
  await carryOut(deps, { mission, commands });
  return notes.join(", ") || "commands carried out";
}

/**
 * A mission under way made before missions were indexed by issue (src/store/github-store.ts)
 * gets its index ref, so that `/naruto approve`, `status`, `retry` and `cancel` find it. One
 * request per mission under way per sweep: "already exists" is the usual answer.
 */
async function indexOlderMission(deps: ModeDeps, mission: Mission, version: string): Promise<void> {
  if (mission.source.kind !== "github") return;
  await deps.github.createRef({ ref: issueIndexPrefix(mission.source.issue) + mission.id, sha: version }).catch((error: unknown) => {
    if (!(error instanceof RefExistsError)) throw error;
  });
}

async function deleteOldBranches(deps: ModeDeps, mission: Mission): Promise<string | null> {
  // Worker branches, and the branches that keep unfinished attempts' work (artifacts.ts).
  const refs = [
    ...(await deps.github.listRefs(`refs/heads/naruto/${mission.id}--`)),
    ...(await deps.github.listRefs(`refs/heads/naruto-attempts/${mission.id}/`)),
  ];
  for (const { ref } of refs) await deps.github.deleteRef(ref);
  return refs.length === 0 ? null : `deleted ${refs.length} worker branch(es)`;
}
