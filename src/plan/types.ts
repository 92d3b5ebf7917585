import type { RepoPath } from "./paths.ts";

/**
 * A plan item after parsing and validation (README, "The plan format"). Paths are normalized; defaults are
 * filled in (`title` = id, `prompt` = title, `agent` = "default", `estimate` = 1 unit).
 */
export interface PlanItem {
  readonly id: string;
  readonly title: string;
  readonly prompt: string;
  /** Normalized, duplicates removed, in the order written. Empty only for a read-only item. */
  readonly writes: readonly RepoPath[];
  readonly reads: readonly RepoPath[];
  /** Declared dependencies, as written. */
  readonly after: readonly string[];
  readonly agent: string;
  readonly verify: string | null;
  /** Estimated duration in units (1 unit = 1 minute; `90s` = 1.5). */
  readonly estimate: number;
  /** An item that changes nothing (`readonly: true`, `writes: []`): any change is out of scope. */
  readonly readonly: boolean;
  /**
   * `may_weaken`: the item may delete tests or add skip markers (the arbiter then reports it
   * without asking for changes); null: it may not.
   */
  readonly tests: "may_weaken" | null;
}

/** A valid plan: every id unique, every `after` known, no cycle, limits respected. */
export interface Plan {
  readonly version: 1;
  readonly title: string;
  readonly items: readonly PlanItem[];
}

/**
 * One problem in a plan. `item` is the item's id when it has one (null for plan-level errors);
 * `field` is the path inside the item (or the plan), as in `after[0]` or `writes[1]`.
 * `index` is the item's position, for messages like `items[3] (id "x").writes[1]: …`.
 */
export interface PlanError {
  readonly item: string | null;
  readonly index: number | null;
  readonly field: string;
  readonly message: string;
}

export type PlanResult = { ok: true; plan: Plan } | { ok: false; errors: PlanError[] };

/** Limits and policy that validation needs (from config and CLI flags). */
export interface PlanLimits {
  /** Most items a plan may have (default 1,000). */
  readonly maxItems: number;
  /** Longest item prompt in characters. */
  readonly maxPromptChars: number;
  /** Paths no item may write inside (default `.github/workflows/`, `.github/naruto.yml`). */
  readonly protected: readonly RepoPath[];
  /** The config allows items to write protected paths. */
  readonly allowProtected: boolean;
}

/**
 * How a conflicting pair is ordered: by the plan's own `after` edges, by an edge the planner
 * added, or not at all (only in strict mode, where that makes the plan invalid).
 */
export type ConflictOrder = "declared" | "added" | "unordered";

/**
 * Two items whose writes overlap, as `naruto plan --json` prints them (docs/architecture.md).
 * `a` is ordered before `b`; `path` is the overlapping path (the deeper of the two writes).
 */
export interface PlanConflict {
  readonly a: string;
  readonly b: string;
  readonly path: string;
  readonly order: ConflictOrder;
}

/** An item's dependencies as `naruto plan --json` prints them (docs/architecture.md). */
export interface OrderedItem {
  readonly id: string;
  /** The plan's declared dependencies, as written. */
  readonly after: readonly string[];
  /** Only the edges the planner added to order conflicting items, in plan order. */
  readonly added_after: readonly string[];
}
