/**
 * The public face of `src/git/`: the git plumbing port (the runner; the named operations that
 * choose its long-running processes: readObjects, checkObjects, diffTrees, updateRefs,
 * writeCommits; object parsing, the tree model, and fast-import, the one commit writer). Other
 * folders import it only through this file.
 */
export { GitParseError } from "./parse-objects.ts";
export { checkObjects, readObjects } from "./cat-file-session.ts";
export { diffTrees } from "./diff-tree-session.ts";
export { refUpdate, updateRefs } from "./ref-sessions.ts";
export type { RefLine } from "./ref-sessions.ts";
export { rawIdent, runFastImport, writeCommits, writeTreeCommit } from "./fast-import.ts";
export type { ImportChange, ImportCommit, ImportEntry } from "./fast-import.ts";
export { parseCatFileBatch, parseCommit, parseLsTree, parseRawDiff, parseUnmergedPaths } from "./parse-objects.ts";
export type { CommitObject } from "./parse-objects.ts";
export { perRepository, repoLayout } from "./repo-layout.ts";
export { GitError, createGit, gitText, splitNul } from "./run-git.ts";
export type { Git, GitCall } from "./run-git.ts";
export { VirtualTree, displayPath, rawText } from "./tree-model.ts";
export type { PathChange, RawPath } from "./tree-model.ts";
