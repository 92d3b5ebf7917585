/** The public face of `src/local`: other folders import it only through this file. */
export { cleanMissions, leftoverBranchCount } from "./clean.ts";
export type { CleanedMission } from "./clean.ts";
export { tidyAfterKilledRun } from "./leftover-work.ts";
export { ConfigInvalidError } from "./config-at.ts";
export { runLocalMission } from "./local-mission.ts";
export { resumeLocalMission } from "./resume-mission.ts";
export type { LocalDeps, RunRequest } from "./local-mission.ts";
export { MissionStillRunningError } from "./mission-lock.ts";
export { RunRefusedError } from "./preflight.ts";
export { logProgress, terminalProgress } from "./progress.ts";
export type { Progress } from "./progress.ts";
export { reportPaths, writeReports } from "./reports.ts";
export { refreshLocalMission, refreshMessage } from "./refresh-mission.ts";
export type { LocalRefresh } from "./refresh-mission.ts";
export { RunOverridesError, loadRunOverrides } from "./run-overrides.ts";
