/**
 * The port's records of git data (refs, trees, commits, comparisons), the Git Data API's view of
 * a repository (port.ts re-exports them).
 */
export interface GitRef {
  /** Fully qualified: `refs/heads/naruto/m-1`. */
  readonly ref: string;
  readonly sha: string;
}

/** A path in a new tree: an existing object by sha (null deletes it from `base`), or new text. */
export type TreeEntry =
  | { readonly path: string; readonly mode: "100644" | "100755" | "040000" | "160000" | "120000"; readonly sha: string | null }
  | { readonly path: string; readonly mode: "100644" | "100755"; readonly content: string };

/** A file of a commit, with its text when GitHub gives it inline (not for a binary blob or one over 512,000 bytes). */
export type CommittedFile = { readonly path: string; readonly sha: string; readonly text: string | null };

/** One level of a tree: its files (paths are names) with their texts, and its folders' trees. */
export interface TreeLevel {
  readonly tree: string;
  readonly files: readonly CommittedFile[];
  readonly folders: readonly { readonly name: string; readonly tree: string }[];
}

export interface Commit {
  readonly sha: string;
  readonly tree: string;
  readonly parents: readonly string[];
  readonly message: string;
}

export type ChangeStatus = "added" | "removed" | "modified" | "renamed" | "copied" | "changed" | "unchanged";

export interface ChangedFile {
  readonly path: string;
  readonly status: ChangeStatus;
  /** The path before a rename. */
  readonly previousPath: string | null;
}

export interface Comparison {
  /** `ahead`: head descends from base; `identical`; `behind`; `diverged`. */
  readonly status: "ahead" | "behind" | "identical" | "diverged";
  readonly aheadBy: number;
  readonly behindBy: number;
  readonly files: readonly ChangedFile[];
  /** False when GitHub cut the file list (it lists at most 300 files per comparison). */
  readonly filesComplete: boolean;
  /** The commit `base...head` is measured from. */
  readonly mergeBase: string;
}
