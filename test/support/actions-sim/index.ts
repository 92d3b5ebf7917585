/**
 * The GitHub Actions simulator (issue 6, "Tests"): runs naruto's workflow against the fake
 * GitHub with real processes, real git and the bundled Action. See README.md for what it
 * models and what it does not.
 */
export { createActionsSimulator, type ActionsSimulator, type SimulatorOptions, type TriggerInput } from "./simulator.ts";
export { runUntilQuiet, RunawayError, type RunUntilQuietInput } from "./driver.ts";
export { formatRun } from "./format.ts";
export { canIsolate, type Isolation } from "./machine.ts";
export type { JobHookInfo } from "./workflow-run.ts";
export type { StepHookInfo } from "./job-runner.ts";
export type { Conclusion, JobResult, RunResult, StepResult } from "./types.ts";
