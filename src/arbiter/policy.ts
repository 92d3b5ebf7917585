/**
 * The arbiter's policy rules (docs/architecture.md): the checks that need no model and always run.
 * Pure: the caller gathers the facts (what changed on the queue, whether the queue head was
 * verified, what the independent proof checker said) and this file turns them into findings.
 */
import type { Finding, Mission, MissionItem } from "../mission/index.ts";
import { isCoveredBy, isAncestorOrSelf, repoPathOf, type RepoPath } from "../plan/index.ts";
import { RULES } from "./rules.ts";
import { testReportFindings, testsWeakenedFindings, type ItemPatch } from "./tests-weakened.ts";

/** What the independent proof checker (`verifyProof`) said about the mission's proof. */
export type ProofCheck = { readonly ok: true } | { readonly ok: false; readonly reasons: readonly string[] };

export interface PolicyInput {
  readonly mission: Mission;
  /** Every path changed on the queue since the base commit, as git prints it. */
  readonly changedPaths: readonly string[];
  /** The config's protected paths, normalized; pass `[]` when the config sets `allow_protected`. */
  readonly protectedPaths: readonly RepoPath[];
  readonly queue: {
    /** The config has a `queue.verify` command. */
    readonly verifyConfigured: boolean;
    /** The queue head is the candidate of a batch whose verification passed. */
    readonly headVerified: boolean;
  };
  /** The proof checker's result; `null` when it was not run (an error when there is a plan). */
  readonly proofCheck: ProofCheck | null;
  /** The patch of each integrated item's queue commit (what it did to the tests); absent: none read. */
  readonly itemPatches?: readonly ItemPatch[];
}

/**
 * Runs every policy rule and returns its findings; an empty list means every rule passed.
 *
 * @example
 * const workflows = repoPathOf(".github/workflows"); // or normalizePath(…) on the config
 * policyFindings({ mission, changedPaths: [".github/workflows/ci.yml"], protectedPaths: [workflows],
 *   queue: { verifyConfigured: false, headVerified: false }, proofCheck: { ok: true } })
 * // [{ severity: "error", rule: "protected_path", path: ".github/workflows/ci.yml", … }]
 */
export function policyFindings(input: PolicyInput): Finding[] {
  return [
    ...proofFindings(input.mission, input.proofCheck),
    ...protectedFindings(input.changedPaths, input.protectedPaths),
    ...queueFindings(input.mission, input.queue),
    ...missionFindings(input.mission),
    ...tamperFindings(input.mission),
    ...rootFindings(input.mission),
    ...itemFindings(input.mission),
    ...testsWeakenedFindings(input.mission, input.itemPatches ?? []),
    ...testReportFindings(input.mission, input.mission.queue.test_findings),
    ...verifyFindings(input.mission),
  ];
}

/** Agents that ran as root without a sandbox cap the verdict at `request_changes` (docs/architecture.md). */
function rootFindings(mission: Mission): Finding[] {
  if (!mission.agents_as_root) return [];
  return [
    finding(
      "error",
      RULES.agentsAsRoot,
      "agents ran as root without a sandbox (sandbox: none, naruto running as root): nothing but the tamper record stood between them and this machine, so the result is not approved; run naruto as an ordinary user, or as root with bubblewrap installed (sandbox: auto), where agents run as an unprivileged user",
    ),
  ];
}

/**
 * What the queue learned about its verify: each flip (blamed on nobody, but the verify is flaky
 * there), and a red base that batches were judged against.
 */
function verifyFindings(mission: Mission): Finding[] {
  const out: Finding[] = [];
  const flips = mission.queue.flips;
  if (flips.length > 0) {
    const where = flips
      .slice(0, 5)
      .map(
        (f) =>
          `${f.commit.slice(0, 12)} (${f.item === null ? "the base" : `suspecting ${f.item}#${f.attempt}`}: ${f.runs.map((g) => (g ? "green" : "red")).join(", ")})`,
      );
    out.push(
      finding(
        "warning",
        RULES.verifyFlaky,
        `queue.verify flipped ${flips.length} time(s), red then green on the same candidate: ${where.join("; ")}${flips.length > 5 ? `; ${flips.length - 5} more` : ""}. No item was blamed for a flip; the flaky tests deserve a fix`,
      ),
    );
  }
  const base = mission.queue.base_check;
  if (base !== null && !base.green && mission.status !== "failed") {
    const failing = base.report?.failures.length ?? 0;
    out.push(
      finding(
        "info",
        RULES.redBase,
        `the base ${base.commit.slice(0, 12)} was red (${failing} failing test(s)); batches were judged against its failures (queue.red_base: compare)`,
      ),
    );
  }
  return out;
}

function finding(severity: Finding["severity"], rule: string, message: string, path: string | null = null): Finding {
  return { severity, rule, message, path, line: null };
}

function proofFindings(mission: Mission, check: ProofCheck | null): Finding[] {
  if (check === null) {
    if (mission.items.length === 0) return [];
    return [finding("error", RULES.proofUnchecked, "the no-overlap proof was not checked: run the proof checker before the review")];
  }
  if (check.ok) return [];
  const reasons = check.reasons.length > 0 ? check.reasons : ["the checker gave no reason"];
  return reasons.map((r) => finding("error", RULES.proof, `the no-overlap proof does not hold: ${r}`));
}

function protectedFindings(changed: readonly string[], protectedPaths: readonly RepoPath[]): Finding[] {
  if (protectedPaths.length === 0) return [];
  const out: Finding[] = [];
  for (const path of new Set(changed)) {
    const file = repoPathOf(path);
    if (!isCoveredBy(file, protectedPaths)) continue;
    const by = protectedPaths.find((p) => isAncestorOrSelf(p, file));
    out.push(finding("error", RULES.protectedPath, `"${path}" is protected (${by?.path ?? "protected"}) and changed on the queue`, path));
  }
  return out;
}

function queueFindings(mission: Mission, queue: PolicyInput["queue"]): Finding[] {
  if (!queue.verifyConfigured) return [];
  // A queue still at its base holds nothing that needed verifying.
  if (mission.queue.head === mission.base.commit) return [];
  const short = mission.queue.head.slice(0, 12);
  if (!queue.headVerified) {
    return [finding("error", RULES.queueUnverified, `the queue head ${short} is not the result of a verified batch, yet queue.verify is configured`)];
  }
  // The flag alone could be wrong; the mission's own count must agree that a verify ran.
  if (mission.queue.verify_runs === 0) {
    return [finding("error", RULES.queueUnverified, `the queue head ${short} moved but the mission records no verify run`)];
  }
  return [];
}

function missionFindings(mission: Mission): Finding[] {
  if (mission.reason === null) return [];
  return [finding("error", RULES.missionStopped, `the mission stopped early: ${mission.reason}`)];
}

/**
 * What the tamper record found: the user's own changes (the sandbox kept agents out) are told,
 * anything else blocks. Each names what changed and its old value, so it can be put back.
 */
function tamperFindings(mission: Mission): Finding[] {
  return mission.tampering.map((f) => {
    const change = `${f.what}: ${f.before ?? "(absent)"} → ${f.after ?? "(deleted)"}`;
    if (f.blame === "user")
      return finding("info", RULES.userChange, `${change} while the mission ran; agents could not reach the repository, so this is taken for your own change`);
    if (f.blame === "forged_artifact")
      return finding(
        "error",
        RULES.tampered,
        `${f.what} was refused: ${f.action ?? "it is not the work of the leg it is named for"}; a process in one of this mission's jobs made it, so review what the jobs ran`,
      );
    const who =
      f.blame === "not_naruto"
        ? "naruto's own ref was moved by something other than naruto"
        : `it changed while ${f.attempts.join(", ")} ran without the sandbox`;
    return finding("error", RULES.tampered, `${change}: ${who}${f.action ? `; ${f.action}` : ""}`);
  });
}

/** Longest item reason quoted in a finding. */
const MAX_REASON = 1000;

function itemFindings(mission: Mission): Finding[] {
  const byId = new Map(mission.items.map((i) => [i.id, i]));
  const out: Finding[] = [];
  for (const item of mission.items) {
    const f = itemFinding(item, byId);
    if (f !== null) out.push(f);
  }
  return out;
}

function itemFinding(item: MissionItem, byId: ReadonlyMap<string, MissionItem>): Finding | null {
  const name = `item "${item.id}"`;
  const full = item.reason ?? item.attempts.at(-1)?.reason ?? null;
  // A failed queue verification carries its output: the finding names it, the log keeps it.
  const reason = full !== null && full.length > MAX_REASON ? `${full.slice(0, MAX_REASON - 1)}…` : full;
  switch (item.status) {
    case "integrated":
      return null;
    case "pending":
    case "ready":
    case "running":
    case "checkpointed":
      return finding("error", RULES.itemUnfinished, `${name} is still ${item.status}: the review ran before it finished`);
    case "skipped": {
      const dependency = reason === null ? null : failedDependencyNamed(reason, item, byId);
      if (dependency === null) {
        return finding("error", RULES.itemUnexplained, `${name} was skipped, but its reason names no failed dependency: ${reason ?? "(no reason recorded)"}`);
      }
      return finding("warning", RULES.itemSkipped, `${name} was skipped: ${reason}`);
    }
    case "tampered":
      return finding("error", RULES.tampered, `${name} is tampered: ${reason ?? "(no reason recorded)"}`);
    case "failed":
    case "conflicted":
    case "out_of_scope":
    case "timed_out":
    case "cancelled":
      if (reason === null) return finding("error", RULES.itemUnexplained, `${name} is ${item.status} and no reason was recorded`);
      return finding("error", RULES.itemFailed, `${name} is ${item.status}: ${reason}`);
  }
}

/**
 * The dependency a skip reason names (`dependency "a" failed (…)`, see the scheduler), when it
 * is really one of the item's dependencies, direct or not, and really not integrated.
 */
function failedDependencyNamed(reason: string, item: MissionItem, byId: ReadonlyMap<string, MissionItem>): string | null {
  const named = /dependency "([^"]+)"/.exec(reason)?.[1];
  if (named === undefined) return null;
  const dep = byId.get(named);
  if (dep === undefined || dep.status === "integrated") return null;
  return ancestorsOf(item, byId).has(named) ? named : null;
}

function ancestorsOf(item: MissionItem, byId: ReadonlyMap<string, MissionItem>): Set<string> {
  const seen = new Set<string>();
  const stack = [...item.after, ...item.added_after];
  for (let id = stack.pop(); id !== undefined; id = stack.pop()) {
    if (seen.has(id)) continue;
    seen.add(id);
    const dep = byId.get(id);
    if (dep) stack.push(...dep.after, ...dep.added_after);
  }
  return seen;
}
