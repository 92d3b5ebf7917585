/** The job log, outputs, masking and summary of a real runner, through @actions/core. */
import * as core from "@actions/core";
import type { ActionLog } from "./log.ts";

/** @param options.summary the runner gave a summary file (`GITHUB_STEP_SUMMARY`; runners older than 2.298 do not) */
export function coreLog(options: { readonly summary: boolean }): ActionLog {
  return {
    info: (m) => core.info(m),
    warning: (m) => core.warning(m),
    error: (m) => core.error(m),
    group: (name, work) => core.group(name, work),
    setSecret: (value) => core.setSecret(value),
    setOutput: (name, value) => core.setOutput(name, value),
    summary: async (markdown) => {
      if (!options.summary) return;
      await core.summary.addRaw(markdown, true).write();
    },
  };
}
