/**
 * How an agent, or an item's verify command, that did not exit 0 failed, as the attempt's
 * outcome. A failure a retry would only repeat is `permanent` (the item fails at once, with what
 * to do): a command not found (sh's exit 127) or not runnable (126), and the agent's own word
 * that its CLI refused its credentials (the presets say so in their result file). Anything else
 * is `failed`, and retried.
 */
import type { AgentRun } from "../agent/index.ts";
import { formatFix, PRESET_AUTH, type AgentProfile } from "../config/index.ts";
import type { AttemptOutcome, KeptWork, PermanentCause } from "../mission/index.ts";
import { describeLimitHit } from "../sandbox/index.ts";

export interface CrashInput {
  readonly run: AgentRun;
  /** "the agent", "the item's verify command". */
  readonly what: string;
  /** Why it ended, as the attempt's reason starts: `exited with code 3`, `killed by SIGKILL`. */
  readonly why: string;
  /** What became of its unfinished work (null: it left none). */
  readonly work: KeptWork | null;
  /** Whether it ran in the sandbox: what "not found" means then. */
  readonly sandboxed: boolean;
  /** What gives its CLI credentials, for a refusal of them (a preset's commands); null: no advice. */
  readonly authFix: string | null;
  /** Its output's end, for the report (the reason keeps it). */
  readonly tail: string;
}

/** sh's exit codes for a command it could not find, and for one it found but could not run. */
const NOT_FOUND = 127;
const NOT_RUNNABLE = 126;

export function crashOutcome(input: CrashInput): AttemptOutcome {
  const { run, what, why, work, tail } = input;
  const failure = run.result?.failure ?? null;
  const permanent = (cause: PermanentCause, text: string): AttemptOutcome => ({ kind: "permanent", cause, reason: `${why}: ${text}`, work, output: tail });
  if (run.exitCode === NOT_FOUND || run.exitCode === NOT_RUNNABLE) {
    const where = input.sandboxed ? " inside the sandbox" : "";
    const how = input.sandboxed
      ? "The sandbox shows the system's folders, the work directory (the commit's files), where a preset's CLI is installed, and the files its command names: show anything else it needs with `naruto run --read PATH` (or `read:` in its profile in .github/naruto.yml), or run it with `--sandbox none`."
      : "Install it, or fix the command (`--agent`, or `agents:` in .github/naruto.yml).";
    const found =
      run.exitCode === NOT_FOUND
        ? `a command ${what} runs was not found${where}`
        : `a command ${what} runs was found${where} but could not be run (not executable, a folder, or not readable by the user the agent runs as)`;
    return permanent("not_found", `${found}. naruto does not retry it: it would fail the same way. ${how}`);
  }
  if (failure !== null) {
    const advice =
      failure.kind === "authentication"
        ? (input.authFix ?? "Check the credentials its profile passes (`env:` in .github/naruto.yml).")
        : "Fix its profile in .github/naruto.yml.";
    const said = failure.message === "" ? "" : ` (${failure.message})`;
    const text =
      failure.kind === "authentication"
        ? `its CLI refused its credentials${said}`
        : failure.kind === "not_found"
          ? `it says something it needs is missing${said}`
          : `it says its command line is not one its CLI takes${said}`;
    return permanent(failure.kind, `${text}. naruto does not retry it: it would fail the same way. ${advice}`);
  }
  return { kind: "failed", reason: why, work, output: tail };
}

/** What gives a preset's CLI credentials (said when they are refused); null for a plain command. */
export function authFixOf(profile: Pick<AgentProfile, "preset">): string | null {
  if (profile.preset === null) return null;
  const auth = PRESET_AUTH[profile.preset];
  return `Give ${auth.cli} credentials it takes, then run the mission again:\n${formatFix(auth)}`;
}

const OUTPUT_TAIL = 3000;

export function crashReason(run: AgentRun, who = "the agent"): string {
  if (run.limit) return describeLimitHit(run.limit, who);
  if (run.signal) return `killed by ${run.signal}`;
  if (run.exitCode === null) return `could not start: ${run.notes.join("; ")}`;
  return `exited with code ${run.exitCode}`;
}

export function outputTail(output: string): string {
  return output.length <= OUTPUT_TAIL ? output : `…${output.slice(-OUTPUT_TAIL)}`;
}

export function minutes(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`;
}
