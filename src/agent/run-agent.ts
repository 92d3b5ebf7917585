import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Leftover, Sandbox } from "../sandbox/sandbox.ts";
import type { WorkDir } from "../sandbox/work-dir.ts";
import { buildAgentEnv, type AttemptVars } from "./agent-env.ts";
import { readAgentFile } from "./agent-file.ts";
import { parseAgentResult, type AgentResult } from "./agent-result.ts";

/** How one attempt's agent ended. */
export type AgentOutcome =
  /** Exit code 0. Whether it changed anything is for the scope check to say. */
  | "exited"
  /** Killed at `timeoutMs`, with everything it started. */
  | "timed_out"
  /** Non-zero exit, killed by a signal, or could not be started. */
  | "crashed"
  /** Stopped through `signal` (the mission was cancelled or the runner is shutting down). */
  | "cancelled";

export interface AgentRun {
  readonly outcome: AgentOutcome;
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly durationMs: number;
  readonly timedOut: boolean;
  /** stdout and stderr interleaved, bounded (see output-buffer.ts). */
  readonly output: string;
  readonly outputBytes: number;
  readonly outputTruncated: boolean;
  /** The agent's `$NARUTO_RESULT_FILE`, when it wrote one. */
  readonly result: AgentResult | null;
  /** That file's text as read (see readAgentFile), for the records. */
  readonly resultText: string | null;
  /** What it left running after it exited, found and killed (see src/sandbox/). */
  readonly leftovers: readonly Leftover[];
  /** What a report should mention: an invalid result file, dropped variables, a failed start. */
  readonly notes: readonly string[];
}

export interface RunAgentOptions extends Omit<AttemptVars, "promptFile" | "resultFile"> {
  /** The profile's command, run with `sh -c` in the work directory. */
  readonly command: string;
  readonly sandbox: Sandbox;
  readonly workDir: WorkDir;
  /** The prompt: written to `prompt.md` in the work directory's io folder, outside the files the agent edits. */
  readonly prompt: string;
  /** Where the result file is, in the io folder (default `result.json`). */
  readonly resultName?: string;
  /** The runner's environment; only basics and `allowEnv` names of it reach the agent. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly allowEnv: readonly string[];
  /** Whether the agent may reach the network (its profile's `network`). */
  readonly network: boolean;
  /** More paths it sees read-only (its profile's `read:` and where its CLI is installed). */
  readonly readOnly?: readonly string[];
  readonly timeoutMs: number;
  /** Between SIGTERM and SIGKILL. Default 5 s. */
  readonly killGraceMs?: number;
  /** Default 1 MiB. */
  readonly outputLimitBytes?: number;
  /** Every chunk of output as it arrives (live progress, a log file); unbounded. */
  readonly onOutput?: (chunk: Buffer) => void;
  readonly signal?: AbortSignal;
}

const RESULT_FILE_LIMIT = 1024 * 1024;

/** Where runAgent writes the prompt and where the agent writes its result, in the work directory. */
export function agentFiles(workDir: Pick<WorkDir, "io">, resultName = "result.json"): { promptFile: string; resultFile: string } {
  return { promptFile: join(workDir.io, "prompt.md"), resultFile: join(workDir.io, resultName) };
}

/**
 * Runs an agent (DESIGN.md §8) in its work directory through the sandbox and reports how it
 * ended; never throws for anything the agent does. Its environment is built from nothing
 * (`buildAgentEnv`); the prompt is passed by file; whatever it leaves running is killed.
 *
 * @example runAgent({ command: profile.command, sandbox, workDir, prompt, env: process.env, allowEnv: profile.env, network: true, … })
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentRun> {
  const { promptFile, resultFile } = agentFiles(options.workDir, options.resultName);
  const { env, dropped } = buildAgentEnv({ from: options.env, allow: options.allowEnv, attempt: { ...options, promptFile, resultFile } });
  const notes = dropped.map((d) => `${d.name} was not passed to the agent: ${d.reason}`);
  await writeFile(promptFile, options.prompt);
  await rm(resultFile, { force: true });

  const run = await options.sandbox.run({
    command: options.command,
    workDir: options.workDir,
    env,
    network: options.network,
    ...(options.readOnly ? { readOnly: options.readOnly } : {}),
    timeoutMs: options.timeoutMs,
    ...(options.killGraceMs !== undefined ? { killGraceMs: options.killGraceMs } : {}),
    ...(options.outputLimitBytes !== undefined ? { outputLimitBytes: options.outputLimitBytes } : {}),
    ...(options.onOutput ? { onOutput: options.onOutput } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (run.startFailed !== null) notes.push(`the agent could not be started: ${run.startFailed}`);
  if (run.leftovers.length > 0) notes.push(`killed ${run.leftovers.length} process(es) the agent left running: ${run.leftovers.map((l) => `${l.pid} (${l.command.slice(0, 80)})`).join(", ")}`);
  const read = await readAgentFile(resultFile, "result file", RESULT_FILE_LIMIT);
  const parsed = parseAgentResult(read.text);
  return {
    outcome: run.cancelled ? "cancelled" : run.timedOut ? "timed_out" : run.exitCode === 0 && run.startFailed === null ? "exited" : "crashed",
    exitCode: run.exitCode,
    signal: run.signal,
    durationMs: run.durationMs,
    timedOut: run.timedOut,
    output: run.output,
    outputBytes: run.outputBytes,
    outputTruncated: run.outputTruncated,
    result: parsed.result,
    resultText: read.text,
    leftovers: run.leftovers,
    notes: [...notes, ...read.notes, ...parsed.notes],
  };
}
