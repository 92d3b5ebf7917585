/**
 * The public face of `src/store/`: the mission store adapters side by side (docs/architecture.md): git refs
 * locally, refs on GitHub. The port is `MissionStore` in src/mission/store.ts.
 */
export { createGitHubMissionStore, CorruptMissionError, GITHUB_STATE_REF_PREFIX, githubSaveBackoff, type GitHubMissionStoreOptions } from "./github-store.ts";
export { MISSION_REF_PREFIX, createLocalMissionStore, readMissionVersion } from "./git-store.ts";
export { issueIndexPrefix } from "./github-store.ts";
