/**
 * Publish's part of a work run's legs (issue 32): it takes a leg's work only from that leg. The
 * legs that ended, and each one's own artifact, come from GitHub (the work run's jobs and
 * artifacts, by the run id the mission's state names), never from what lies in the job's folder;
 * the queue job's zips are used only where they are byte for byte what GitHub lists. The queue
 * job's record cannot add a leg: an integrate run records the legs both jobs found ended (the
 * queue job's verdicts are for those), and every line of the record naming another leg, like
 * every artifact that is not its leg's work, is named in the log and the mission's tamper record.
 */
import { join } from "node:path";
import type { Config } from "../../config/index.ts";
import type { Mission, MissionEvent } from "../../mission/index.ts";
import { checkArtifactFolder } from "../artifact-checks.ts";
import { ARTIFACT_SPECS, QUEUE_ARTIFACT } from "../artifacts.ts";
import type { DispatchInput, ModeDeps } from "../deps.ts";
import { describeForgery, forgeryEvent, reconcileLegs } from "./forgeries.ts";
import { readQueueRecord } from "./queue-record.ts";
import { legsSettled } from "./legs.ts";
import { takeLegs, workRunOf } from "./take-legs.ts";
import { failedLegEvents, workEvents, type BranchPush } from "./work-events.ts";

export async function publishLegs(input: {
  deps: ModeDeps;
  mission: Mission;
  config: Config;
  queueRef: string;
  dispatch: DispatchInput;
  folder: string;
  at: string;
}): Promise<{ events: MissionEvent[]; pushes: BranchPush[] }> {
  const { deps, mission, dispatch, at } = input;
  const runId = workRunOf(dispatch, deps.run);
  if (runId === null) return { events: [], pushes: [] };
  const integrate = dispatch.phase === "integrate";
  const record = await readQueueRecord(input.folder, mission.id);
  const queueFolder = join(input.folder, QUEUE_ARTIFACT);
  const forwarded = (await checkArtifactFolder(queueFolder, ARTIFACT_SPECS.queue)).kind === "ok" ? { forwarded: queueFolder } : {};
  const folder = join(deps.tempDir, "naruto-legs");
  const legs = await takeLegs({ github: deps.github, mission, runId, dispatched: integrate ? null : dispatch.items, folder, ...forwarded });
  for (const f of legs.forgeries) deps.log.warning(`naruto: ${describeForgery(f)}`);
  const known = [...legs.taken.map((t) => ({ ...t, kind: "taken" as const })), ...legs.failed.map((f) => ({ ...f, kind: "failed" as const }))];
  const settled = legsSettled(mission, runId);
  const { take, left, stale, unknown } = reconcileLegs({ known, reported: record?.entries ?? null, integrate, settled });
  const named = (legs: readonly { item: string; attempt: number }[]) => legs.map((l) => `${l.item}#${l.attempt}`).join(", ");
  if (left.length > 0) deps.log.info(`${named(left)}: ended after the queue job started; left to the next integrate run`);
  if (stale.length > 0) deps.log.info(`${named(stale)}: recorded by another run of the mission meanwhile; not taken again`);
  for (const u of unknown)
    deps.log.warning(
      `naruto: the queue job's record names ${u.item}#${u.attempt}, which did not end as a leg of run ${runId}: refused (the record cannot add a leg)`,
    );
  const taken = take.flatMap((t) =>
    t.kind === "taken" ? [{ item: t.item, attempt: t.attempt, job: { runId, runAttempt: t.job.runAttempt, name: t.job.name } }] : [],
  );
  const { events, pushes } = await workEvents({
    folder,
    mission,
    config: input.config,
    git: deps.git,
    repoDir: deps.workspace,
    queueRef: input.queueRef,
    entries: taken,
    at,
    runUrl: null,
    log: deps.log,
  });
  events.push(
    ...failedLegEvents(
      mission,
      take.filter((t) => t.kind === "failed"),
      at,
    ),
  );
  const tampered = forgeryEvent({ at, forgeries: legs.forgeries, unknownEntries: unknown, runId: deps.run?.id ?? null });
  return { events: tampered === null ? events : [tampered, ...events], pushes };
}
