/**
 * The names of the arbiter's rules (docs/architecture.md). A finding's `rule` is one of these (or the
 * review agent's own name for a finding), and the verdict is decided from the rule, not from
 * the wording of a message.
 */

/** Every rule the policy and the review may report. */
export const RULES = {
  /** An item failed, was out of scope, conflicted, timed out or was cancelled. */
  itemFailed: "item_failed",
  /** An item was skipped because a dependency failed: explained, but not integrated. */
  itemSkipped: "item_skipped",
  /** An item is not integrated and nothing says why. */
  itemUnexplained: "item_unexplained",
  /** An item had not finished when the arbiter ran. */
  itemUnfinished: "item_unfinished",
  /** A path under `protected` changed on the queue. */
  protectedPath: "protected_path",
  /** A queue verify command is configured but the queue head is not a verified batch. */
  queueUnverified: "queue_unverified",
  /** The independent proof checker rejected the mission's no-overlap proof. */
  proof: "proof",
  /** No proof check result was given for a mission that has a plan. */
  proofUnchecked: "proof_unchecked",
  /** The mission stopped early: cost cap, mission timeout, cancel. */
  missionStopped: "mission_stopped",
  /**
   * Something other than naruto changed the user's repository, naruto's refs or the user's
   * startup files while agents ran without the sandbox, or moved naruto's own refs (docs/architecture.md).
   */
  tampered: "tampered",
  /** The user changed their own refs or git files while the sandbox kept agents out: reported, not blamed. */
  userChange: "user_change",
  /**
   * Agents ran as root without a sandbox (`sandbox: none` chosen as root): whatever they did to
   * the machine outside the repository no check could see, so the result is never approved.
   */
  agentsAsRoot: "agents_as_root",
  /**
   * An item deleted a test file or added a skip marker, or a batch ran fewer tests or skipped
   * more (the verify's test report): an error unless the item's plan entry says `tests: may_weaken`.
   */
  testsWeakened: "tests_weakened",
  /** `queue.verify` flipped (red, then green on the same candidate): flaky; nothing was blamed on it. */
  verifyFlaky: "verify_flaky",
  /** The base was red and `queue.red_base: compare` judged batches against its failures. */
  redBase: "red_base",
  /** The review agent's output could not be read as a verdict. */
  reviewOutput: "review_output",
  /** Default rule of a finding from the review agent that names none. */
  review: "review",
} as const;

export type RuleName = (typeof RULES)[keyof typeof RULES];

/**
 * Rules whose error means the integrated result is unsafe to merge: the verdict is `block`.
 * A touched protected path or a failed proof means naruto's own guarantees did not hold; an
 * unverified queue head means code reached the queue without the check the config demands;
 * tampering means an agent (or something else) reached around naruto's checks.
 */
export const BLOCKING_RULES: ReadonlySet<string> = new Set([RULES.protectedPath, RULES.proof, RULES.queueUnverified, RULES.tampered]);

/**
 * Rules that mean some item is not integrated. Any finding of these, whatever its severity, asks
 * for changes: a skipped item is explained (a warning) but its work is still missing.
 */
export const NOT_INTEGRATED_RULES: ReadonlySet<string> = new Set([RULES.itemFailed, RULES.itemSkipped, RULES.itemUnexplained, RULES.itemUnfinished]);
