import { isCoveredBy, normalizePath, repoPathOf, type RepoPath } from "../plan/index.ts";
import { SYMLINK_MODE, type Change } from "./changes.ts";
import type { GateRule } from "./gate.ts";

export type ScopeRule = "outside_writes" | "read_only" | "protected" | "symlink_target";

/** A path an attempt may not change, by the item's scope or by the gate (src/gate/gate.ts). */
export interface ScopeViolation {
  /** The offending path as git reports it (for a rename, either side). */
  readonly path: string;
  readonly rule: ScopeRule | GateRule;
  readonly detail: string;
}

export type ScopeResult = { readonly ok: true } | { readonly ok: false; readonly violations: readonly ScopeViolation[] };

/** What an item may change (docs/architecture.md). */
export interface ScopePolicy {
  /** The item's normalized writes. */
  readonly writes: readonly RepoPath[];
  /** A read-only item may change nothing, whatever `writes` says. */
  readonly readonly: boolean;
  /** Config `protected` paths. */
  readonly protected: readonly RepoPath[];
  /** The config allows items to write protected paths. */
  readonly allowProtected: boolean;
}

/**
 * Checks every changed path against the item's scope, with the plan's own path normalizer, so a
 * path the no-overlap proof called disjoint is judged the same way here (case-insensitive, by
 * whole components). Both sides of a rename must be in scope: moving a file out of another
 * item's subtree changes that subtree.
 *
 * Symlinks (decision): a symlink the agent created or changed must point, read lexically from the
 * link's directory, to a path inside the item's writes (and not into a protected path). An
 * absolute target, a `..` that leaves the repository, a target into `.git`, or one outside the
 * writes is a violation: writing through such a link would change what another item owns, or
 * files outside the repository, behind the scope check's back. The check is lexical; links
 * that existed before the attempt are not re-judged.
 */
export function checkScope(changes: readonly Change[], policy: ScopePolicy): ScopeResult {
  const violations: ScopeViolation[] = [];
  const seen = new Set<string>();
  const add = (v: ScopeViolation) => {
    const key = `${v.rule}\0${v.path}`;
    if (!seen.has(key)) seen.add(key), violations.push(v);
  };
  const readOnly = policy.readonly || policy.writes.length === 0;
  const writes = policy.writes.map((w) => w.path).join(", ");
  for (const change of changes) {
    for (const [path, side] of sidesOf(change)) {
      const p = repoPathOf(path);
      if (readOnly) add({ path, rule: "read_only", detail: `${side}: a read-only item may change nothing` });
      else if (!isCoveredBy(p, policy.writes)) add({ path, rule: "outside_writes", detail: `${side}: not inside the item's writes (${writes})` });
      if (!policy.allowProtected && isCoveredBy(p, policy.protected)) {
        add({ path, rule: "protected", detail: `${side}: protected path; only the config can allow writing it` });
      }
    }
    if (change.newMode === SYMLINK_MODE && !readOnly) {
      const problem = symlinkProblem(change.path, change.symlinkTarget, policy);
      if (problem !== null) add({ path: change.path, rule: "symlink_target", detail: problem });
    }
  }
  return violations.length === 0 ? { ok: true } : { ok: false, violations };
}

function sidesOf(change: Change): [string, string][] {
  if (change.from === null) return [[change.path, change.kind]];
  return [
    [change.from, `renamed to ${JSON.stringify(change.path)}`],
    [change.path, `renamed from ${JSON.stringify(change.from)}`],
  ];
}

/** Why a symlink's target is out of scope, or null when it is fine. */
export function symlinkProblem(link: string, target: string | null, policy: Pick<ScopePolicy, "writes" | "protected" | "allowProtected">): string | null {
  const shown = JSON.stringify(target ?? "");
  if (target === null || target === "") return "symlink with an empty or unreadable target";
  if (target.startsWith("/") || /^[A-Za-z]:/.test(target) || target.includes("\\")) {
    return `symlink to ${shown}: an absolute target points outside the repository`;
  }
  const dir = link.includes("/") ? link.slice(0, link.lastIndexOf("/")) : "";
  const resolved = normalizePath(dir === "" ? target : `${dir}/${target}`);
  if (!resolved.ok) return `symlink to ${shown}: ${resolved.message}`;
  if (!isCoveredBy(resolved.value, policy.writes)) {
    return `symlink to ${shown} resolves to ${JSON.stringify(resolved.value.path)}, outside the item's writes`;
  }
  if (!policy.allowProtected && isCoveredBy(resolved.value, policy.protected)) {
    return `symlink to ${shown} resolves into a protected path`;
  }
  return null;
}
