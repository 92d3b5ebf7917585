/**
 * The integrate job's check of a work artifact. The work job ran an agent, so its bundle and its
 * result are untrusted: everything the worker's own checks said is checked again here, from git
 * and the mission state, before anything of it is pushed (docs/architecture.md).
 *
 * Accepted only: a bundle git verifies, holding exactly the worker branch at the checkpoint; the
 * checkpoint one commit whose only parent is the attempt's base; that base a commit of the queue
 * (the mission's base or a descendant, and the queue head or an ancestor); trailers naming this
 * mission, item and attempt; every changed path inside the item's writes and outside protected.
 */
import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { changedPaths, checkGate, checkScope, gatePolicy, gitDirCall, workerBranch } from "../../gate/index.ts";
import { gitText, type Git } from "../../git/index.ts";
import type { Config } from "../../config/index.ts";
import type { Mission, MissionItem } from "../../mission/index.ts";
import type { AttemptOutcome } from "../../mission/index.ts";
import { normalizePath } from "../../plan/index.ts";
import { ARTIFACT_FILES, MAX_BUNDLE_BYTES, type WorkResult } from "../artifacts.ts";

export type Recheck =
  | { readonly kind: "accepted"; readonly outcome: Extract<AttemptOutcome, { kind: "checkpointed" }> }
  | { readonly kind: "refused"; readonly outcome: Extract<AttemptOutcome, { kind: "failed" | "out_of_scope" }>; readonly reason: string };

export interface RecheckInput {
  readonly git: Git;
  readonly repoDir: string;
  /** The folder of this artifact (`<artifacts>/naruto-work-<item>-<n>`). */
  readonly folder: string;
  readonly mission: Mission;
  readonly item: MissionItem;
  readonly attempt: number;
  readonly result: WorkResult;
  readonly config: Config;
  /** The local queue ref, fetched from GitHub just before. */
  readonly queueRef: string;
}

export async function recheckCheckpoint(input: RecheckInput): Promise<Recheck> {
  const o = input.result.outcome;
  if (o.kind !== "checkpointed") throw new TypeError("recheckCheckpoint takes a checkpointed result");
  const checked = await recheckCommit(input, o.commit, o.base);
  if (checked.kind === "out_of_scope") {
    return { kind: "refused", outcome: { kind: "out_of_scope", paths: checked.paths }, reason: `changed paths it may not change: ${checked.paths.join(", ")}` };
  }
  if (checked.kind === "refused") return refused(checked.problem);
  if (checked.changed.length === 0) return refused("the checkpoint changes nothing");
  return { kind: "accepted", outcome: { kind: "checkpointed", commit: o.commit, base: o.base, changed: checked.changed } };
}

/**
 * The work an attempt that did not finish (timed out, crashed) left, when its result carries it
 * (`commit` over `base`): checked exactly as a checkpoint is, to be kept on a branch of its own,
 * never integrated. Accepted with the commit, or refused with why.
 */
export async function recheckPartialWork(
  input: RecheckInput,
): Promise<{ readonly kind: "accepted"; readonly commit: string } | { readonly kind: "refused"; readonly reason: string }> {
  const { commit, base } = input.result;
  if (commit === null || base === null) return { kind: "refused", reason: "the result names no commit" };
  const checked = await recheckCommit(input, commit, base);
  if (checked.kind === "out_of_scope") return { kind: "refused", reason: `it changes paths it may not change: ${checked.paths.join(", ")}` };
  if (checked.kind === "refused") return { kind: "refused", reason: checked.problem };
  return { kind: "accepted", commit };
}

type CommitCheck =
  | { readonly kind: "ok"; readonly changed: string[] }
  | { readonly kind: "out_of_scope"; readonly paths: string[] }
  | { readonly kind: "refused"; readonly problem: string };

/** The bundle, the commit's shape and trailers, then its changes against the item's scope. */
async function recheckCommit(input: RecheckInput, commit: string, base: string): Promise<CommitCheck> {
  const problem = await findProblem(input, commit, base);
  if (problem !== null) return { kind: "refused", problem };
  // The gate (docs/architecture.md): git's fsck rules, gitlinks, .gitmodules, .gitattributes, file sizes.
  const gate = await checkGate({ git: input.git, call: gitDirCall(await gitDir(input)), base, tip: commit, policy: gatePolicy(input.config) });
  const refusedByGate = gate.kind === "refused" ? gate.violations.map((v) => `${v.path} (${v.rule})`) : [];
  if (gate.changes === null) return { kind: "out_of_scope", paths: [...new Set(refusedByGate)] };
  const changes = gate.changes;
  const writes = input.item.writes.map((w) => {
    const n = normalizePath(w);
    if (!n.ok) throw new Error(`the stored plan has an invalid path ${JSON.stringify(w)}: ${n.message}`);
    return n.value;
  });
  const scope = checkScope(changes, { writes, readonly: input.item.readonly, protected: input.config.protected, allowProtected: input.config.allow_protected });
  const refusedByScope = scope.ok ? [] : scope.violations.map((v) => `${v.path} (${v.rule})`);
  if (refusedByGate.length + refusedByScope.length > 0) return { kind: "out_of_scope", paths: [...new Set([...refusedByGate, ...refusedByScope])] };
  return { kind: "ok", changed: changedPaths(changes) };
}

function refused(reason: string): Recheck {
  const why = `the work job's checkpoint was refused: ${reason}`;
  return { kind: "refused", outcome: { kind: "failed", reason: why }, reason: why };
}

async function findProblem(input: RecheckInput, commit: string, base: string): Promise<string | null> {
  const { git, repoDir, mission, item, attempt } = input;
  const sha = /^[0-9a-f]{40}$/;
  if (!sha.test(commit) || !sha.test(base)) return "the result names commits that are not object ids";
  if (input.result.commit !== commit || input.result.base !== base) return "the result's commit and base disagree with its outcome";
  const bundle = join(input.folder, ARTIFACT_FILES.bundle);
  const stat = await lstat(bundle).catch(() => null);
  if (stat === null) return "the artifact has no checkpoint.bundle";
  if (!stat.isFile()) return "checkpoint.bundle is not a regular file";
  if (stat.size > MAX_BUNDLE_BYTES) return `checkpoint.bundle is larger than ${MAX_BUNDLE_BYTES} bytes`;

  const verify = await git({ args: ["bundle", "verify", "--quiet", bundle], cwd: repoDir, okCodes: [1, 128] });
  if (verify.code !== 0) return `git cannot use the bundle: ${verify.stderr.trim().split("\n").slice(-1)[0] ?? "verify failed"}`;
  const branch = `refs/heads/${workerBranch(mission.id, item.id)}`;
  const heads = (await gitText(git, { args: ["bundle", "list-heads", bundle], cwd: repoDir })).split("\n").filter((l) => l !== "");
  if (heads.length !== 1 || heads[0] !== `${commit} ${branch}`) return `the bundle must hold exactly ${branch} at ${commit.slice(0, 12)}`;
  // Into a ref of naruto's own: the ref names inside the bundle are never used as given.
  const incoming = `refs/naruto/incoming/${mission.id}/${item.id}/${attempt}`;
  await git({ args: ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", bundle, `+${branch}:${incoming}`], cwd: repoDir });
  const fetched = await gitText(git, { args: ["rev-parse", "--verify", `${incoming}^{commit}`], cwd: repoDir });
  if (fetched !== commit) return "the bundle's branch is not the checkpoint it names";

  const parents = (await gitText(git, { args: ["rev-list", "--parents", "-n", "1", commit], cwd: repoDir })).split(" ").slice(1);
  if (parents.length !== 1 || parents[0] !== base) {
    return `the checkpoint must be one commit whose only parent is its base ${base.slice(0, 12)} (it has ${parents.length === 1 ? `parent ${parents[0]!.slice(0, 12)}` : `${parents.length} parents`})`;
  }
  if (!(await isAncestor(git, repoDir, mission.base.commit, base)) || !(await isAncestor(git, repoDir, base, input.queueRef))) {
    return `its base ${base.slice(0, 12)} is not a commit of the queue ${mission.queue.branch}`;
  }
  const trailers = await readTrailers(git, repoDir, commit);
  const expected = { "Naruto-Mission": mission.id, "Naruto-Item": item.id, "Naruto-Attempt": String(attempt) };
  for (const [key, value] of Object.entries(expected)) {
    const found = trailers.get(key) ?? [];
    if (found.length !== 1 || found[0] !== value) return `trailer ${key} must be ${JSON.stringify(value)} (found ${JSON.stringify(found)})`;
  }
  return null;
}

async function isAncestor(git: Git, repoDir: string, ancestor: string, of: string): Promise<boolean> {
  const { code } = await git({ args: ["merge-base", "--is-ancestor", ancestor, of], cwd: repoDir, okCodes: [1] });
  return code === 0;
}

/** Every trailer of the commit's message, by key (values trimmed). */
async function readTrailers(git: Git, repoDir: string, commit: string): Promise<Map<string, string[]>> {
  const message = await gitText(git, { args: ["cat-file", "commit", commit], cwd: repoDir });
  const body = message.slice(message.indexOf("\n\n") + 2);
  const parsed = await gitText(git, { args: ["interpret-trailers", "--parse", "--no-divider"], cwd: repoDir, input: body });
  const map = new Map<string, string[]>();
  for (const line of parsed.split("\n")) {
    const at = line.indexOf(":");
    if (at <= 0) continue;
    const key = line.slice(0, at).trim();
    map.set(key, [...(map.get(key) ?? []), line.slice(at + 1).trim()]);
  }
  return map;
}

async function gitDir(input: RecheckInput): Promise<string> {
  const dir = await gitText(input.git, { args: ["rev-parse", "--absolute-git-dir"], cwd: input.repoDir });
  return dir;
}
