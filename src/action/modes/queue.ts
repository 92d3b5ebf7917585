/**
 * `queue` (read-only job): the merge queue of this run, built and verified where no write token
 * is in reach. The queue's verify command runs the repository's code, which agents wrote; a token
 * in the same job would be theirs (docs/architecture.md, "Tokens and code on Actions").
 *
 * Two steps, as in the agent jobs. The action's step (the job's read-only token) loads the
 * mission and the config text, fetches the queue, the base and the checkpoints earlier runs left
 * waiting, hands them over in a file, and exits. The queue step (a `run:` step holding no token)
 * re-checks this run's work artifacts exactly as publish will, builds the queue from the
 * checkpoints they lead to with the same batches as on one machine, runs `queue.verify` in the
 * sandbox with bisection, and writes the `naruto-queue` artifact: the record of what it built
 * and how each verification went, and the new queue commits as a bundle. Nothing is pushed and
 * nothing is recorded in the mission: the publish job does that, after rebuilding the same
 * commits itself.
 */
import { join } from "node:path";
import { writeFile } from "node:fs/promises";
import { queueVerifier } from "../../engine/index.ts";
import { queueRefName, readRef } from "../../queue/index.ts";
import { gitText } from "../../git/index.ts";
import type { ReportRead, VerifyCandidate } from "../../queue/index.ts";
import { tail } from "../../queue/index.ts";
import type { MissionEvent } from "../../mission/index.ts";
import { isMissionTerminal } from "../../mission/index.ts";
import { codeSpan } from "../../report/index.ts";
import { ARTIFACT_FILES } from "../artifacts.ts";
import type { AgentStepDeps, DispatchInput, ModeDeps } from "../deps.ts";
import { buildQueue, fetchMissingCheckpoints, ordersAfter, readyOrders, waitingCheckpoints } from "../integrate/build-queue.ts";
import type { QueueRecord } from "../integrate/queue-record.ts";
import { failedLegEvents, workEvents } from "../integrate/work-events.ts";
import { describeForgery } from "../integrate/forgeries.ts";
import { takeLegs, workRunOf } from "../integrate/take-legs.ts";
import { quoteUntrusted } from "../job-log.ts";
import type { ActionLog } from "../log.ts";
import { preparedCommon, type PreparedOf } from "../prepared.ts";
import { fetchRefs, hasCommit } from "../remote.ts";
import { artifactFolder, configFromText, engineContext, handOver, readMission, missionConfigText, missionInput } from "./shared.ts";
import { fetchBaseTip, refreshStep } from "../integrate/refresh-run.ts";

/**
 * The action's step: the mission, its config text, the commits the queue step needs, and the
 * legs of the work run that ended — bound to their jobs and unpacked from their own artifacts,
 * read from GitHub by run id (take-legs.ts); their zips are handed on to publish as they came.
 */
export async function prepareQueue(deps: ModeDeps, input: { mission: string; dispatch: DispatchInput }): Promise<void> {
  const id = missionInput(input.mission);
  deps.log.setOutput("mission", id);
  const artifact = await artifactFolder(deps);
  const { mission } = await readMission(deps, id);
  const refresh = input.dispatch.phase === "refresh";
  // A finished mission's queue can be refreshed (the base moved after the verdict).
  if (isMissionTerminal(mission.status) && !(refresh && mission.status === "done")) {
    const reason = `mission ${id} is ${mission.status}: there is nothing to integrate`;
    await handOver(deps, { kind: "skip", phase: "queue", mission: id, reason });
    deps.log.info(reason);
    return;
  }
  const folder = join(deps.tempDir, "naruto-legs");
  const runId = workRunOf(input.dispatch, deps.run);
  const legs =
    runId === null
      ? null
      : await takeLegs({ github: deps.github, mission, runId, dispatched: input.dispatch.phase === "work" ? input.dispatch.items : null, folder });
  for (const f of legs?.forgeries ?? []) deps.log.warning(`naruto: ${describeForgery(f)}`);
  for (const t of legs?.taken ?? []) await writeFile(join(artifact, `${t.artifact}.zip`), t.zip);
  if (input.dispatch.phase === "integrate" && waitingCheckpoints(mission).length === 0 && (legs === null || legs.taken.length + legs.failed.length === 0)) {
    // The App starts one per leg that ends; an earlier one, or the work run itself, may have taken them.
    const reason = `nothing to integrate for ${id}: no leg of run ${runId ?? "?"} is waiting, and no checkpoint`;
    await handOver(deps, { kind: "skip", phase: "queue", mission: id, reason });
    deps.log.info(reason);
    return;
  }
  const { git, workspace: repoDir, remote } = deps;
  const queueRef = queueRefName(id);
  // The queue as GitHub has it; a queue branch that is not there yet starts where the state says.
  await fetchRefs(git, repoDir, remote, [`+${queueRef}:${queueRef}`]).catch(async () => {
    await fetchRefs(git, repoDir, remote, [`+${mission.queue.head}:${queueRef}`]);
  });
  if (!(await hasCommit(git, repoDir, mission.base.commit))) await fetchRefs(git, repoDir, remote, [`+${mission.base.commit}:refs/naruto/base/${id}`]);
  await fetchMissingCheckpoints({ git, repoDir, remote, log: deps.log, mission: id, orders: waitingCheckpoints(mission) });
  // A refresh: the base branch's head, read once here; the queue step replays the queue onto it.
  const onto = refresh ? await fetchBaseTip(deps, mission) : null;
  const configText = await missionConfigText(deps, mission);
  await handOver(deps, {
    kind: "queue",
    ...preparedCommon(mission, { configPath: deps.configPath, configText, artifact }),
    artifacts: folder,
    dispatch: { phase: input.dispatch.phase, items: [...input.dispatch.items], ...(input.dispatch.run === undefined ? {} : { run: input.dispatch.run }) },
    ...(onto === null ? {} : { onto }),
    legs: (legs?.taken ?? []).map((t) => ({
      item: t.item,
      attempt: t.attempt,
      job: { runId: legs?.runId ?? 0, runAttempt: t.job.runAttempt, name: t.job.name },
    })),
    failed: (legs?.failed ?? []).map((f) => ({ item: f.item, attempt: f.attempt, reason: f.reason })),
  });
  deps.log.info(`the queue of ${id} is ready: the next step builds and verifies it, without any token`);
}

/** The queue step: this run's checkpoints onto a local queue, verified; the record into the artifact. */
export async function queueStep(deps: AgentStepDeps, job: PreparedOf<"queue">): Promise<void> {
  const { mission } = job;
  const { git, workspace: repoDir, log } = deps;
  const config = configFromText({ text: job.configText, path: job.configPath, mission });
  const at = deps.now().toISOString();
  const queueRef = queueRefName(mission.id);
  const start = await readRef(git, repoDir, queueRef);
  if (start === null) throw new Error(`${queueRef} is missing in the checkout: run naruto's action step (mode queue) first`);
  // Nothing of the repository runs here unless in the sandbox: on a runner a config that turns it
  // off, or a runner where it cannot start, fails this step before anything runs.
  await deps.chooseSandbox(config.sandbox);
  if (job.dispatch.phase === "refresh") return refreshStep(deps, job, { config, start, recorded: (verify, runs) => recorded(verify, runs, log) });
  // What this run integrates: the legs of the work run that ended, as the action's step bound them
  // to their jobs (publish takes these, and only those it finds ended itself).
  const events: MissionEvent[] = [
    ...(await workEvents({ folder: job.artifacts, mission, config, git, repoDir, queueRef, entries: job.legs, at, runUrl: null, log })).events,
    ...failedLegEvents(mission, job.failed, at),
  ];
  const entries = [...job.legs.map((l) => ({ item: l.item, attempt: l.attempt })), ...job.failed.map((f) => ({ item: f.item, attempt: f.attempt }))];
  const { ready } = await readyOrders({ git, repoDir, at }, ordersAfter(mission, events));
  // One committer time for every queue commit, handed on: publish writes the same bytes with it.
  const time = Math.floor(deps.now().getTime() / 1000);
  const runs: QueueRecord["verify"] = [];
  let head = start;
  let results: QueueRecord["results"] = [];
  if (ready.length > 0) {
    const ctx = await engineContext(deps, config);
    const verify = config.queue.verify;
    const built = await buildQueue(
      {
        ...ctx,
        now: () => new Date(time * 1000),
        verify,
        ...(verify === null ? {} : { verifier: recorded(queueVerifier(ctx, mission.id, verify), runs, log) }),
        log,
      },
      mission,
      ready,
    );
    head = built.head;
    results = built.events.flatMap((e) => e.results);
  }
  const record: QueueRecord = {
    schema: "naruto.queue/v1",
    mission: mission.id,
    start_head: start,
    committer_time: time,
    entries: [...entries],
    checkpoints: ready,
    verify: runs,
    head,
    results,
  };
  await writeFile(join(job.artifact, ARTIFACT_FILES.queue), `${JSON.stringify(record, null, 2)}\n`);
  if (head !== start) {
    await gitText(git, { args: ["bundle", "create", join(job.artifact, ARTIFACT_FILES.queueBundle), queueRef, `^${start}`], cwd: repoDir });
  }
  const lines = results.map((r) => `- ${codeSpan(`${r.item}#${r.attempt}`)}: ${r.kind.replace("_", " ")}`);
  log.info(`queue of ${mission.id}: ${start.slice(0, 12)} → ${head.slice(0, 12)}, ${ready.length} checkpoint(s), ${runs.length} verify run(s)`);
  await log.summary(
    `### naruto ${codeSpan(mission.id)} · queue\n\nBuilt ${codeSpan(head.slice(0, 12))} on ${codeSpan(start.slice(0, 12))} with ${runs.length} verify run(s); the publish job rebuilds it before anything is pushed.\n\n${lines.join("\n")}\n`,
  );
}

/**
 * The verify command, with each run written down for the record and shown in the log: every
 * line quoted (`quoteUntrusted`), so nothing the command prints is read by the runner as a
 * workflow command. Its output comes redacted (queueVerifier).
 */
function recorded(verify: VerifyCandidate, runs: QueueRecord["verify"], log: ActionLog): VerifyCandidate {
  return async (commit) => {
    const result = await verify(commit);
    const output = tail(result.output, 16 * 1024);
    runs.push({ commit, exit_code: result.exitCode, output, ...(result.report === undefined ? {} : { report: recordedReport(result.report) }) });
    const text = quoteUntrusted(output);
    log.info(
      `verify of ${commit.slice(0, 12)}: ${result.exitCode === 0 ? "green" : `red (exit ${result.exitCode ?? "none"})`}${text === "" ? "" : `\n${text}`}`,
    );
    return { exitCode: result.exitCode, output, ...(result.report === undefined ? {} : { report: result.report }) };
  };
}

/** A run's report as the record holds it. */
function recordedReport(read: ReportRead): NonNullable<QueueRecord["verify"][number]["report"]> {
  if (read.kind !== "read") return { ...read };
  const r = read.report;
  return { kind: "read", report: { ...r, files: r.files.map((f) => ({ ...f })), failures: [...r.failures] } };
}
