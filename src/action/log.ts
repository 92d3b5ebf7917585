/**
 * The job's side of a mode: log lines, groups, outputs, masking and the job summary. The Action
 * implements it with @actions/core (`main.ts`); tests record it.
 */
import type { DriverLog } from "../github-driver/index.ts";

export interface ActionLog extends DriverLog {
  error(message: string): void;
  group<T>(name: string, work: () => Promise<T>): Promise<T>;
  /** Masks a value in every later log line. */
  setSecret(value: string): void;
  setOutput(name: "artifact" | "matrix" | "mission" | "cli" | "prepared", value: string): void;
  /** Appends markdown to the job summary. */
  summary(markdown: string): Promise<void>;
}

/** A log that keeps everything, for tests and for a mode run inside another. */
export interface RecordedLog extends ActionLog {
  readonly lines: string[];
  readonly outputs: Record<string, string>;
  readonly summaries: string[];
}

export function recordingLog(): RecordedLog {
  const lines: string[] = [];
  const outputs: Record<string, string> = {};
  const summaries: string[] = [];
  return {
    lines,
    outputs,
    summaries,
    info: (m) => void lines.push(m),
    warning: (m) => void lines.push(`warning: ${m}`),
    error: (m) => void lines.push(`error: ${m}`),
    group: async (name, work) => {
      lines.push(`group: ${name}`);
      return work();
    },
    setSecret: () => undefined,
    setOutput: (name, value) => {
      outputs[name] = value;
    },
    summary: async (markdown) => void summaries.push(markdown),
  };
}
