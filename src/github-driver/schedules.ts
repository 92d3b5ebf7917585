/**
 * Missions started by the clock (`schedules:` in the config, docs/action.md): the sweep asks which
 * schedules fired since shortly before it ran, and starts one mission per firing, each with an
 * issue of its own for the tracking comment and for `/naruto approve|status|cancel`.
 *
 * Idempotent like a comment's mission: the firing names the mission (same schedule, same minute,
 * same id), the issue is found by its marker before one is opened, and the state's
 * compare-and-swap decides — two sweeps at once, or a sweep re-run, start nothing twice.
 */
import { createHash } from "node:crypto";
import { checkPlan } from "../plan/index.ts";
import { formatConfigErrors, latestFiring, type Config, type Schedule } from "../config/index.ts";
import { markerFor } from "../github/index.ts";
import type { MissionEvent } from "../mission/index.ts";
import { isMissionTerminal } from "../mission/index.ts";
import { applyEvent } from "../mission/index.ts";
import { carryOut } from "./carry-out.ts";
import { narutoAuthors, type DriverDeps } from "./deps.ts";
import { message } from "./publish.ts";
import { missionSettings, readConfigAt } from "./settings.ts";
import { ensureQueueBranch } from "./start-mission.ts";
import { loginOnRunner } from "./runner-login.ts";

/**
 * How late a sweep may run and still start a firing it finds: GitHub delays scheduled runs under
 * load (and the sweep runs every 15 minutes). Older firings are let go, not started in a burst,
 * and a schedule added to the config does not start at once for a firing of hours ago.
 */
export const SCHEDULE_WINDOW_MS = 60 * 60 * 1000;

/** Who asked, in a scheduled mission's source: the schedule, not a person. */
export const scheduleActor = (name: string) => `schedule:${name}`;

/** The mission of one firing: the same schedule and minute always give the same id. */
export function scheduledMissionId(repo: string, name: string, firing: Date): string {
  const digest = createHash("sha256").update(`naruto-schedule\0${repo.toLowerCase()}\0${name}\0${firing.toISOString()}`).digest("hex");
  return `m-${digest.slice(0, 12)}`;
}

export interface ScheduleDeps extends DriverDeps {
  /** `owner/name`. */
  readonly repo: string;
  readonly configPath: string;
}

/**
 * Starts the missions of the schedules that fired within the window before now, reading the
 * config at the head of `defaultBranch` (reviewed code). Returns one line per schedule that did
 * something or could not, for the sweep's summary; a schedule's failure does not stop the others.
 */
export async function startScheduledMissions(deps: ScheduleDeps, input: { defaultBranch: string; windowMs?: number }): Promise<string[]> {
  const commit = await deps.github.getRef(`refs/heads/${input.defaultBranch}`);
  if (commit === null) return [];
  const loaded = await readConfigAt(deps.github, deps.configPath, commit);
  if (!loaded.ok) {
    // A broken config must be seen: the sweep's summary says why nothing was scheduled.
    return [`schedules not read: the config is invalid\n\n\`\`\`\n${formatConfigErrors(loaded.errors, deps.configPath)}\n\`\`\``];
  }
  const login = loaded.config.schedules.length === 0 ? null : loginOnRunner(loaded.config, deps.configPath);
  if (login !== null) return [`schedules not started: ${login}`];
  const now = deps.now();
  const lines: string[] = [];
  let running: Map<string, string> | null = null;
  for (const schedule of loaded.config.schedules) {
    const firing = latestFiring(schedule.cron, now, input.windowMs ?? SCHEDULE_WINDOW_MS);
    if (firing === null) continue;
    const id = scheduledMissionId(deps.repo, schedule.name, firing);
    try {
      if ((await deps.store.load(id)) !== null) continue;
      running ??= await runningSchedules(deps);
      const previous = running.get(schedule.name);
      if (previous !== undefined) {
        lines.push(`schedule ${schedule.name}: the firing of ${minute(firing)} skipped: its previous mission ${previous} is still under way`);
        continue;
      }
      lines.push(await startOne(deps, { schedule, firing, id, commit, defaultBranch: input.defaultBranch, config: loaded.config }));
    } catch (error) {
      deps.log.warning(`schedule ${schedule.name}: ${message(error)}`);
      lines.push(`schedule ${schedule.name}: failed: ${message(error).split("\n")[0] ?? ""}`);
    }
  }
  return lines;
}

async function startOne(
  deps: ScheduleDeps,
  p: { schedule: Schedule; firing: Date; id: string; commit: string; defaultBranch: string; config: Config },
): Promise<string> {
  const { schedule, firing, id, commit } = p;
  let planText: string | null = null;
  if (schedule.plan !== null) {
    planText = await deps.github.readFile({ path: schedule.plan, ref: commit });
    if (planText === null) return `schedule ${schedule.name}: not started: its plan file ${schedule.plan} does not exist at ${commit.slice(0, 12)}`;
  }
  const task = schedule.task ?? (planText === null ? null : checkPlan(planText).plan?.title) ?? `the plan in ${schedule.plan ?? "the config"}`;
  const issue = await deps.github.openIssue({
    title: `naruto: ${schedule.name} (${minute(firing)})`,
    body: issueBody(deps.configPath, schedule, firing, task),
    marker: markerFor(`schedule:${id}`),
    since: firing.toISOString(),
    ...narutoAuthors(deps),
  });
  const requested: MissionEvent = {
    type: "requested",
    at: deps.now().toISOString(),
    id,
    task,
    source: { kind: "github", repo: deps.repo, issue: issue.number, comment_id: null, actor: scheduleActor(schedule.name) },
    base: { ref: p.defaultBranch, commit },
    queue_branch: `naruto/${id}`,
    settings: missionSettings(p.config, { approval: schedule.approval, strict: false }),
    plan_text: planText,
    plan_source: { kind: planText === null ? "planner" : "file", author: null },
    config_commit: commit,
  };
  const result = await applyEvent(deps.store, id, requested);
  if (result.duplicate) return `schedule ${schedule.name}: ${id} was started by another sweep`;
  await ensureQueueBranch(deps.github, result.mission, { reset: true });
  await carryOut(deps, { mission: result.mission, commands: result.commands });
  return `schedule ${schedule.name}: started ${id} for ${minute(firing)} on #${issue.number}`;
}

/** Schedules with a mission under way, by name → the mission's id. */
async function runningSchedules(deps: ScheduleDeps): Promise<Map<string, string>> {
  const running = new Map<string, string>();
  for (const id of await deps.store.list()) {
    const stored = await deps.store.load(id).catch(() => null);
    const source = stored?.mission.source;
    if (!stored || source?.kind !== "github" || isMissionTerminal(stored.mission.status)) continue;
    const name = /^schedule:(.+)$/.exec(source.actor)?.[1];
    if (name !== undefined) running.set(name, id);
  }
  return running;
}

function issueBody(configPath: string, schedule: Schedule, firing: Date, task: string): string {
  return [
    `Started by the schedule \`${schedule.name}\` (\`${schedule.cron.text}\`, UTC) in \`${configPath}\`, for ${minute(firing)}.`,
    "",
    `> ${task.split("\n").join("\n> ")}`,
    "",
    `naruto tracks the mission in a comment below. Comment \`/naruto status\`, \`/naruto cancel\`${schedule.approval ? ", or `/naruto approve` once the plan is posted." : "."}`,
  ].join("\n");
}

function minute(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}
