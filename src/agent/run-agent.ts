import {
  createRunFiles,
  readAgentFile,
  RunFilesError,
  type Leftover,
  type LimitHit,
  type ProcessRun,
  type RunFiles,
  type Sandbox,
  type SandboxRun,
} from "../sandbox/index.ts";
import { buildAgentEnv, type AttemptVars } from "./agent-env.ts";
import { agentEndpoints } from "./endpoints.ts";
import { parseAgentResult, type AgentResult } from "./agent-result.ts";
import { createRedactingStream, createRedactor, secretValues, type Redactor } from "../redact/index.ts";

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
  /** The sandbox's limit that ended it (see src/sandbox/limits.ts), or null. */
  readonly limit: LimitHit | null;
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
  /** The prompt as naruto wrote it (the planner's names its plan file). */
  readonly prompt: string;
  /** The planner's plan file as read (see readAgentFile); null: none, or not the planner. */
  readonly planText: string | null;
  /** naruto's files of the run (see src/sandbox/run-files.ts); null when it could not make them. */
  readonly files: RunFiles | null;
}

/**
 * What the sandbox runs (its `command`, `workDir`, `network`, `readOnly`, timeouts, output and
 * `signal`, see SandboxRun), plus what makes it an agent's run: its prompt, its attempt's
 * variables and the environment its allowlist is taken from.
 */
export interface RunAgentOptions extends Omit<AttemptVars, "promptFile" | "resultFile" | "planFile">, Omit<SandboxRun, "env" | "outputs"> {
  readonly sandbox: Sandbox;
  /**
   * The prompt, written to a file of naruto's made fresh for this run in the work directory's
   * `io/`, outside the files the agent edits (src/sandbox/run-files.ts). The planner's is a
   * function of the plan file it is asked to write (`$NARUTO_PLAN_FILE`, made fresh beside it).
   */
  readonly prompt: string | ((planFile: string) => string);
  /** The runner's environment; only basics and `allowEnv` names of it reach the agent. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly allowEnv: readonly string[];
}

const RESULT_FILE_LIMIT = 1024 * 1024;
const PLAN_FILE_LIMIT = 1024 * 1024;

/**
 * Runs an agent (docs/architecture.md) in its work directory through the sandbox and reports how it
 * ended; never throws for anything the agent does. Its environment is built from nothing
 * (`buildAgentEnv`); the prompt is passed by file; whatever it leaves running is killed.
 *
 * Everything of the agent's that comes back is redacted here, where it enters naruto (docs/architecture.md
 * "What leaves"): its output, streamed and whole, its result file and what the notes quote
 * of it. The secrets are the values of its own allowlisted variables and every credential-named
 * one of `env` (see src/redact/secrets.ts), so what it printed of its environment never reaches
 * an event, a log, a report or a comment.
 *
 * @example runAgent({ command: profile.command, sandbox, workDir, prompt, env: process.env, allowEnv: profile.env, network: true, … })
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentRun> {
  // What is the agent's; the rest goes to the sandbox as it is.
  const { sandbox, prompt, env: from, allowEnv, mission, item, attempt, writes, onOutput, ...request } = options;
  const redactor = createRedactor({ secrets: secretValues({ env: from, passed: allowEnv }) });
  const redact = (text: string) => redactor.redact(text);
  const planner = typeof prompt === "function";
  let files: RunFiles;
  let promptText = typeof prompt === "string" ? prompt : "";
  try {
    files = await createRunFiles(request.workDir, {
      outputs: planner ? ["result", "plan"] : ["result"],
      prompt: (outputs) => (promptText = typeof prompt === "string" ? prompt : prompt(outputs.plan ?? "")),
    });
  } catch (error) {
    // Nothing ran: the attempt fails with the reason, and whatever its work directory holds is kept.
    if (!(error instanceof RunFilesError)) throw error;
    return notStarted(redact(error.message), redact(promptText));
  }
  const resultFile = files.outputs.result ?? "";
  const planFile = files.outputs.plan;
  const { env, dropped } = buildAgentEnv({
    from,
    allow: allowEnv,
    attempt: { mission, item, attempt, writes, promptFile: files.prompt, resultFile, ...(planFile === null ? {} : { planFile }) },
  });
  const notes = dropped.map((d) => `${d.name} was not passed to the agent: ${d.reason}`);

  const stream = onOutput === undefined ? null : createRedactingStream(redactor, (text) => onOutput(Buffer.from(text, "utf8")));
  let raw: ProcessRun;
  try {
    const outputs = [resultFile, ...(planFile === null ? [] : [planFile])];
    const reach = request.network === true ? await agentEndpoints(env) : [];
    raw = await sandbox.run({ ...request, env, outputs, reach, ...(stream === null ? {} : { onOutput: (chunk: Buffer) => stream.push(chunk) }) });
  } finally {
    stream?.end();
  }
  const run = { ...raw, leftovers: raw.leftovers.map((l) => ({ ...l, command: redact(l.command) })) };
  if (run.startFailed !== null) notes.push(`the agent could not be started: ${run.startFailed}`);
  if (run.leftovers.length > 0)
    notes.push(
      `killed ${run.leftovers.length} process(es) the agent left running: ${run.leftovers.map((l) => `${l.pid} (${l.command.slice(0, 80)})`).join(", ")}`,
    );
  // The files were made empty: one still empty holds nothing the agent wrote.
  const read = await readAgentFile(resultFile, "result file", RESULT_FILE_LIMIT);
  const resultText = read.text === "" ? null : read.text;
  const parsed = parseAgentResult(resultText);
  const plan = planFile === null ? { text: null, notes: [] } : await readAgentFile(planFile, "plan file", PLAN_FILE_LIMIT);
  return {
    outcome: run.cancelled ? "cancelled" : run.timedOut ? "timed_out" : run.exitCode === 0 && run.startFailed === null ? "exited" : "crashed",
    exitCode: run.exitCode,
    signal: run.signal,
    durationMs: run.durationMs,
    timedOut: run.timedOut,
    limit: run.limit,
    output: redact(run.output),
    outputBytes: run.outputBytes,
    outputTruncated: run.outputTruncated,
    result: redactResult(parsed.result, redactor),
    resultText: resultText === null ? null : redact(resultText),
    leftovers: run.leftovers,
    notes: [...notes, ...read.notes, ...plan.notes, ...parsed.notes].map(redact),
    prompt: promptText,
    planText: plan.text === "" || plan.text === null ? null : plan.text,
    files,
  };
}

/** A run that could not start because naruto's own files for it could not be made. */
function notStarted(reason: string, prompt: string): AgentRun {
  return {
    outcome: "crashed",
    exitCode: null,
    signal: null,
    durationMs: 0,
    timedOut: false,
    limit: null,
    output: "",
    outputBytes: 0,
    outputTruncated: false,
    result: null,
    resultText: null,
    leftovers: [],
    notes: [`the agent could not be started: ${reason}`],
    prompt,
    planText: null,
    files: null,
  };
}

function redactResult(result: AgentResult | null, redactor: Redactor): AgentResult | null {
  if (result === null) return null;
  const text = (value: string | null) => (value === null ? null : redactor.redact(value));
  return { ...result, summary: text(result.summary), model: text(result.model) };
}
