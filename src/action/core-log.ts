/** The job log, outputs, masking and summary of a real runner, through @actions/core. */
import * as core from "@actions/core";
import type { ActionLog } from "./log.ts";

export function coreLog(): ActionLog {
  return {
    info: (m) => core.info(m),
    warning: (m) => core.warning(m),
    error: (m) => core.error(m),
    group: (name, work) => core.group(name, work),
    setSecret: (value) => core.setSecret(value),
    setOutput: (name, value) => core.setOutput(name, value),
    summary: async (markdown) => {
      // Without GITHUB_STEP_SUMMARY (a runner older than 2.298) there is no summary to write.
      if (!process.env["GITHUB_STEP_SUMMARY"]) return;
      await core.summary.addRaw(markdown, true).write();
    },
  };
}
