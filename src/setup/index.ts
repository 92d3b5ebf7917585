/** Public face of `src/setup/`: `naruto init`, `upgrade` and `doctor`, what they write and check. */
export { AGENT_CHOICES, AGENT_SETUP, PINNED, agentBlocks, inferAgent, presetAllows, type AgentChoice, type AgentSetup } from "./agent-setup.ts";
export { configText } from "./config-text.ts";
export { planDiff, planFiles, type FileAction, type PlannedFile } from "./file-plan.ts";
export { unifiedDiff } from "./line-diff.ts";
export { MarkedTemplateError, parseMarkedTemplate, renderMarkedTemplate, yoursBlocks, type MarkedTemplate, type Segment } from "./marked-template.ts";
export { appInstallStep, botLoginStep, personSteps, pullRequestSettingStep, secretStep } from "./person-steps.ts";
export { apiUrl, parseRemoteUrl, parseRepoFlag, webUrl, type GitHubRepository } from "./remote-url.ts";
export {
  choiceOf,
  CONFIG_FILE_PATH,
  madeBy,
  renderWorkflow,
  upgradeWorkflow,
  WORKFLOW_PATH,
  type UpgradeResult,
  type WorkflowChoice,
} from "./workflow-text.ts";
