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
import { finishedLegs, workEvents } from "../integrate/work-events.ts";
import { quoteUntrusted } from "../job-log.ts";
import type { ActionLog } from "../log.ts";
import { preparedCommon, type PreparedOf } from "../prepared.ts";
import { fetchRefs, hasCommit } from "../remote.ts";
import { artifactFolder, configFromText, engineContext, handOver, readMission, missionConfigText, missionInput } from "./shared.ts";
import { fetchBaseTip, refreshStep } from "../integrate/refresh-run.ts";

/** The action's step: the mission, its config text and the commits the queue step needs. */
export async function prepareQueue(deps: ModeDeps, input: { mission: string; artifacts: string; dispatch: DispatchInput }): Promise<void> {
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
  if (input.dispatch.phase === "integrate" && input.dispatch.run !== undefined && waitingCheckpoints(mission).length === 0) {
    // The App starts one per leg that ends; an earlier one, or the work run itself, may have taken them.
    const { entries } = await finishedLegs(input.artifacts, mission, input.dispatch.run);
    if (entries.length === 0) {
      const reason = `nothing to integrate for ${id}: no leg of run ${input.dispatch.run} is waiting, and no checkpoint`;
      await handOver(deps, { kind: "skip", phase: "queue", mission: id, reason });
      deps.log.info(reason);
      return;
    }
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
    artifacts: input.artifacts,
    dispatch: { phase: input.dispatch.phase, items: [...input.dispatch.items], ...(input.dispatch.run === undefined ? {} : { run: input.dispatch.run }) },
    ...(onto === null ? {} : { onto }),
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
  if (job.dispatch.phase === "refresh") return refreshStep(deps, job, { config, start, recorded: (verify, runs) => recorded(verify, runs, log) });
  let events: MissionEvent[] = [];
  // What this run integrates: its own legs, or the legs of the work run it was dispatched for
  // that have ended (publish takes exactly these, from the record).
  const entries = job.dispatch.phase === "integrate" && job.dispatch.run !== undefined ? (await finishedLegs(job.artifacts, mission, job.dispatch.run)).entries : job.dispatch.items;
  if (job.dispatch.phase === "work" || job.dispatch.phase === "integrate") {
    events = (await workEvents({ folder: job.artifacts, mission, config, git, repoDir, queueRef, entries, at, runUrl: null, log })).events;
  }
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
      { ...ctx, now: () => new Date(time * 1000), verify, ...(verify === null ? {} : { verifier: recorded(queueVerifier(ctx, mission.id, verify), runs, log) }), log },
      mission,
      ready,
    );
    head = built.head;
    results = built.events.flatMap((e) => e.results);
  }
  const record: QueueRecord = { schema: "naruto.queue/v1", mission: mission.id, start_head: start, committer_time: time, entries: [...entries], checkpoints: ready, verify: runs, head, results };
  await writeFile(join(job.artifact, ARTIFACT_FILES.queue), JSON.stringify(record, null, 2) + "\n");
  if (head !== start) {
    await gitText(git, { args: ["bundle", "create", join(job.artifact, ARTIFACT_FILES.queueBundle), queueRef, `^${start}`], cwd: repoDir });
  }
  const lines = results.map((r) => `- ${codeSpan(`${r.item}#${r.attempt}`)}: ${r.kind.replace("_", " ")}`);
  log.info(`queue of ${mission.id}: ${start.slice(0, 12)} → ${head.slice(0, 12)}, ${ready.length} checkpoint(s), ${runs.length} verify run(s)`);
  await log.summary(`### naruto ${codeSpan(mission.id)} · queue\n\nBuilt ${codeSpan(head.slice(0, 12))} on ${codeSpan(start.slice(0, 12))} with ${runs.length} verify run(s); the publish job rebuilds it before anything is pushed.\n\n${lines.join("\n")}\n`);
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
    log.info(`verify of ${commit.slice(0, 12)}: ${result.exitCode === 0 ? "green" : `red (exit ${result.exitCode ?? "none"})`}${text === "" ? "" : `\n${text}`}`);
    return { exitCode: result.exitCode, output, ...(result.report === undefined ? {} : { report: result.report }) };
  };
}

/** A run's report as the record holds it. */
function recordedReport(read: ReportRead): NonNullable<QueueRecord["verify"][number]["report"]> {
  if (read.kind !== "read") return { ...read };
  const r = read.report;
  return { kind: "read", report: { ...r, files: r.files.map((f) => ({ ...f })), failures: [...r.failures] } };
}
