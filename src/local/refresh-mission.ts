/**
 * `naruto refresh ID` (issue 37): the mission's queue replayed onto its base branch as it is now
 * (or `--onto REF`), verified as any batch is, then the mission driven on from there: a
 * conflicted item is retried from the new head while it has attempts, and the arbiter reviews the
 * refreshed queue. A refresh that changes nothing says so. One driver at a time: a live run or
 * resume of the mission holds it, and the refresh refuses.
 */
import type { Config } from "../config/index.ts";
import { gitCommonDir, refreshQueue } from "../engine/index.ts";
import { applyEvent, isMissionTerminal, MissionNotFoundError, type Mission } from "../mission/index.ts";
import { defaultWorkRoot } from "../sandbox/index.ts";
import { createLocalMissionStore } from "../store/index.ts";
import { configAt } from "./config-at.ts";
import type { LocalDeps } from "./local-mission.ts";
import { pickSandbox } from "./mission-context.ts";
import { resumeHeld } from "./resume-mission.ts";
import { holdMission } from "./mission-lock.ts";
import { resolveBase, RunRefusedError } from "./preflight.ts";
import { loadRunOverrides } from "./run-overrides.ts";

export type LocalRefresh =
  | { readonly kind: "unchanged"; readonly mission: Mission; readonly message: string }
  | { readonly kind: "halted"; readonly mission: Mission; readonly message: string }
  | { readonly kind: "refreshed"; readonly mission: Mission; readonly message: string };

export async function refreshLocalMission(
  deps: LocalDeps,
  input: { repoDir: string; id: string; onto: string | null; config?: Config },
): Promise<LocalRefresh> {
  const store = createLocalMissionStore({ git: deps.git, repoDir: input.repoDir });
  const commonDir = await gitCommonDir(deps.git, input.repoDir);
  deps.onMission?.(input.id);
  const release = await holdMission(commonDir, input.id);
  try {
    const stored = await store.load(input.id);
    if (!stored) throw new MissionNotFoundError(input.id);
    const m = stored.mission;
    if (m.kind !== "run" || m.status === "failed" || m.status === "cancelled" || m.status === "planning" || m.status === "awaiting_approval") {
      throw new RunRefusedError(`mission ${m.id} is ${m.kind === "run" ? m.status : "a review"}: only a running or finished mission's queue can be refreshed`);
    }
    const target = await resolveBase(deps.git, input.repoDir, input.onto ?? m.base.ref);
    const onto = { ref: input.onto ?? m.base.ref, commit: target.commit };
    const overrides = await loadRunOverrides(commonDir, m.id);
    // The config of the new base: reviewed code, as a run reads it.
    const config = input.config ?? (await configAt(deps.git, input.repoDir, onto.commit));
    const sandbox = await pickSandbox(deps, overrides.sandbox ?? config.sandbox);
    const workRoot = overrides.workdir ?? defaultWorkRoot(deps.env, { override: config.workdir, cwd: deps.cwd });
    const verify = overrides.verify ?? config.queue.verify;
    const ctx = { git: deps.git, repoDir: input.repoDir, commonDir, config, env: deps.env, now: deps.now, sandbox, workRoot, nodePath: deps.nodePath, verify };
    const outcome = await refreshQueue(ctx, m, onto);
    if (outcome.kind === "unchanged") return { kind: "unchanged", mission: m, message: outcome.reason };
    if (outcome.kind === "halted") return { kind: "halted", mission: m, message: outcome.reason };
    const { mission } = await applyEvent(store, m.id, outcome.event);
    const message = refreshMessage(mission, outcome.event.from);
    deps.progress.event(outcome.event, mission);
    if (isMissionTerminal(mission.status)) return { kind: "refreshed", mission, message };
    // Retries from the new head, the waiting checkpoints, and the review of the new queue.
    const driven = await resumeHeld(deps, { repoDir: input.repoDir, commonDir, config, verify }, mission);
    return { kind: "refreshed", mission: driven, message };
  } finally {
    await release();
  }
}

/** What a refresh did, in a line or two. */
export function refreshMessage(m: Mission, from: string): string {
  const last = m.queue.refreshes.at(-1);
  if (!last) return `mission ${m.id} was not refreshed`;
  const dropped = last.dropped.map((d) => `${d.item}: ${d.reason.split("\n")[0] ?? ""}`);
  return [
    `refreshed ${m.id} from ${from.slice(0, 12)} onto ${m.base.ref} (${m.base.commit.slice(0, 12)}): ${last.replayed} item(s) replayed and verified, queue at ${last.head.slice(0, 12)}`,
    ...dropped.map((d) => `  not on the new queue: ${d}`),
  ].join("\n");
}
