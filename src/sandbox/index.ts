/** The public face of `src/sandbox/`: containment (docs/architecture.md). Other folders import it only through this file. */
export { createOutputBuffer, type OutputBuffer } from "./output-buffer.ts";
export { SandboxUnavailableError, chooseSandbox, networkWarning } from "./choose.ts";
export { executableMounts, ProgramNotShownError, whichProgram, type ProgramLink, type ProgramView } from "./executables.ts";
export { makeViewGitDir, viewCall } from "./git-view.ts";
export { killProcessesWithEnv, processesWithEnv } from "./leftovers.ts";
export type { Leftover, NetworkChoice, NetworkSupport, ProcessRun, Sandbox, SandboxRun } from "./sandbox.ts";
export { acceptObjects } from "./quarantine.ts";
export { DEFAULT_LIMITS, describeLimitHit, type LimitHit, type SandboxLimits } from "./limits.ts";
export { snapshotWorkDir } from "./snapshot.ts";
export { SANDBOX_USER, sandboxUserFor, type SandboxUser } from "./sandbox-user.ts";
export { sudoWorks } from "./sudo.ts";
export { compareRecords, createFileHashes, missionRefPatterns, recordRepository } from "./tamper-record.ts";
export type { TamperRecord } from "./tamper-record.ts";
export { createUnsandboxed } from "./unsandboxed.ts";
export { createRunFiles, RunFilesError, type RunFiles } from "./run-files.ts";
export { readAgentFile, readUntrusted, writeOwnFile } from "./untrusted-file.ts";
export {
  WorkRootError,
  createWorkDir,
  defaultWorkRoot,
  listMissionWorkDirs,
  missionWorkFolder,
  removeEmptyMissionFolder,
  removeMissionFolder,
  removeWorkDir,
  retireWorkDir,
  workRepo,
} from "./work-dir.ts";
export type { WorkDir } from "./work-dir.ts";
