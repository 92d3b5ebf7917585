/**
 * The gate (docs/architecture.md): the one check every checkpoint passes before naruto writes it or
 * takes it from a work job, locally and on GitHub (STYLE.md 13). It refuses, by path and rule:
 *
 * - objects git's fsck refuses (src/gate/objects.ts): `.git` in any spelling (`dotgit`),
 *   empty, `.`, `..` or `/`-holding names (`bad_name`), modes git does not write (`bad_mode`), a
 *   name twice in one tree (`duplicate_name`), trees git cannot read or that are out of order
 *   (`bad_tree`);
 * - a blob larger than `limits.max_file_size` (`file_too_large`);
 * - two names of one tree that are one name on macOS and Windows (`README.md` and `readme.md`,
 *   `é.txt` in NFC and NFD: `name_collision`, each name refused), when the change brings one of
 *   them (a pair the base already holds is the repository's, not the change's);
 * - a change that adds, changes or removes a gitlink (`gitlink`) or a `.gitmodules` (`gitmodules`),
 *   unless config `allow:` holds `submodules`; or a `.gitattributes` (`gitattributes`), unless it
 *   holds `gitattributes`. Allowed, they must still be files git would read: not symbolic links,
 *   and (new content) nothing git's fsck refuses (gate-content.ts).
 *
 * A refusal is data, never an exception: the attempt is `out_of_scope` with each `path (rule)`.
 */
import type { Config } from "../config/index.ts";
import { readDiff, withSymlinkTargets, type Change, type ChangedTree, type GitCallFor } from "./changes.ts";
import { showDistinctPath } from "./collisions.ts";
import { gitattributesProblem, gitmodulesProblems, parseConfigList, ATTR_MAX_FILE_SIZE } from "./content.ts";
import { isDotGitattributes, isDotGitmodules } from "./names.ts";
import { checkNewObjects, join, walkAllTrees, type NameCollision, type ObjectRule } from "./objects.ts";
import { GITLINK_MODE, SYMLINK_ENTRY_MODE } from "./tree.ts";
import type { Git } from "../git/index.ts";

/**
 * `special_file` (a named pipe, socket or device) is found before the gate, in the work tree
 * (src/sandbox): a tree cannot hold one, and it is refused by name rather than dropped.
 */
export type GateRule = ObjectRule | "gitlink" | "gitmodules" | "gitattributes" | "name_collision" | "special_file";

export interface GateViolation {
  readonly path: string;
  readonly rule: GateRule;
  readonly detail: string;
}

/** What config lets through the gate. */
export interface GatePolicy {
  /** `allow: [submodules]`: gitlinks and `.gitmodules` may change. */
  readonly submodules: boolean;
  /** `allow: [gitattributes]`: `.gitattributes` files may change. */
  readonly gitattributes: boolean;
  /** `limits.max_file_size`, in bytes. */
  readonly maxFileSize: number;
}

export const DEFAULT_MAX_FILE_SIZE = 50 * 1024 * 1024;

/** Nothing allowed, 50 MiB: what the gate does when no config says otherwise. */
export const STRICT_GATE: GatePolicy = { submodules: false, gitattributes: false, maxFileSize: DEFAULT_MAX_FILE_SIZE };

export function gatePolicy(config: Pick<Config, "allow" | "limits">): GatePolicy {
  return { submodules: config.allow.includes("submodules"), gitattributes: config.allow.includes("gitattributes"), maxFileSize: config.limits.max_file_size };
}

export type GateResult =
  | { readonly kind: "passed"; readonly changes: readonly Change[] }
  /** `changes` is null when the trees are too broken to list them. */
  | { readonly kind: "refused"; readonly violations: readonly GateViolation[]; readonly changes: readonly Change[] | null };

/**
 * Checks the change from commit `base` to `tip` (a commit or a tree), and lists it: two git
 * processes (`diff-tree -t`, `cat-file --batch-command`; one with `repoDir`), another only when a
 * symlink or an allowed `.gitmodules`/`.gitattributes` changed.
 *
 * @param call how to run git in a repository that holds both (naruto's view of a work directory,
 *   or a plain call in the repository)
 * @param repoDir a repository whose object store holds both (the one a view writes into): the
 *   objects are then read through its long-running `cat-file` processes, not a process of their own
 * @example
 * const gate = await checkGate({ git, call, base: start, tip: tree, policy: gatePolicy(config) });
 * if (gate.kind === "refused") return { kind: "out_of_scope", violations: gate.violations, … };
 */
export async function checkGate(input: { git: Git; call: GitCallFor; base: string; tip: string; policy: GatePolicy; repoDir?: string }): Promise<GateResult> {
  for (const id of [input.base, input.tip])
    if (!/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(id)) throw new RangeError(`checkGate takes object ids, not ${JSON.stringify(id)}`);
  const diff = await readDiff({ git: input.git, call: input.call, base: input.base, tip: input.tip });
  if (diff === null)
    return {
      kind: "refused",
      violations: await walkAllTrees({ git: input.git, call: input.call, tip: input.tip, idBytes: input.tip.length / 2 }),
      changes: null,
    };
  // A blob the base holds at a changed path (a renamed file, say) is not new.
  const old = new Set(diff.changes.map((c) => c.oldOid));
  const blobs = diff.changes.flatMap((c) => (c.newOid !== null && c.newMode !== GITLINK_MODE && !old.has(c.newOid) ? [c.newOid] : []));
  const objects = await checkNewObjects({
    git: input.git,
    call: input.call,
    tip: input.tip,
    trees: diff.trees.map((t) => t.oid),
    blobs,
    maxFileSize: input.policy.maxFileSize,
    ...(input.repoDir !== undefined ? { repoDir: input.repoDir } : {}),
  });
  if (objects.violations.some((v) => v.rule !== "file_too_large")) return { kind: "refused", violations: objects.violations, changes: null };
  const changes = await withSymlinkTargets(input.git, input.call, diff.changes);
  const found = changeViolations(changes, input.policy);
  const content = await contentViolations({ ...input, changes, blobSizes: objects.blobSizes });
  const collided = collisionViolations(objects.collisions, diff.changes, diff.trees);
  const violations = [...objects.violations, ...collided, ...found, ...content];
  return violations.length === 0 ? { kind: "passed", changes } : { kind: "refused", violations, changes };
}

/**
 * Each name of a colliding group, when the change brings one of the group: a name added, or
 * renamed to, at that path (a file or a folder). Pure.
 */
export function collisionViolations(collisions: readonly NameCollision[], changes: readonly Change[], trees: readonly ChangedTree[]): GateViolation[] {
  const brought = new Set([
    ...changes.filter((c) => c.kind === "added" || c.kind === "renamed").map((c) => c.path),
    ...trees.filter((t) => t.added).map((t) => t.path),
  ]);
  const out: GateViolation[] = [];
  for (const { dir, names } of collisions) {
    const paths = names.map((name) => join(dir, name));
    if (!paths.some((p) => brought.has(p.toString("utf8")))) continue;
    const all = names.map((n) => showDistinctPath(n)).join(" and ");
    for (const path of paths) {
      out.push({
        path: showDistinctPath(path),
        rule: "name_collision",
        detail: `${all} are one name on macOS and Windows (case-insensitive, Unicode-normalizing file systems): a checkout there keeps only one`,
      });
    }
  }
  return out;
}

/** A plain git call in a git directory (for a repository rather than a work directory's view). */
export function gitDirCall(gitDir: string): GitCallFor {
  return (args, extra) => ({ args: ["--git-dir", gitDir, ...args], cwd: gitDir, ...(extra?.input !== undefined ? { input: extra.input } : {}) });
}

/**
 * The gitlinks, `.gitmodules` and `.gitattributes` a change touches (either side of it), unless
 * allowed; allowed ones that git would not read as a file. Pure.
 */
export function changeViolations(changes: readonly Change[], policy: GatePolicy): GateViolation[] {
  const out: GateViolation[] = [];
  const add = (v: GateViolation) => {
    if (!out.some((o) => o.path === v.path && o.rule === v.rule)) out.push(v);
  };
  for (const change of changes) {
    const sides =
      change.from === null
        ? [[change.path, change.oldMode, change.newMode] as const]
        : [[change.from, change.oldMode, null] as const, [change.path, null, change.newMode] as const];
    for (const [path, oldMode, newMode] of sides) {
      if ((oldMode === GITLINK_MODE || newMode === GITLINK_MODE) && !policy.submodules) {
        add({ path: showText(path), rule: "gitlink", detail: "a submodule (gitlink) changes; config allow: [submodules] lets it" });
      }
      const parts = path.split("/");
      parts.forEach((part, i) => {
        const last = i === parts.length - 1;
        const name = Buffer.from(part, "utf8");
        if (isDotGitmodules(name)) {
          if (!policy.submodules) add({ path: showText(path), rule: "gitmodules", detail: "a .gitmodules changes; config allow: [submodules] lets it" });
          else if (!last) add({ path: showText(path), rule: "gitmodules", detail: "a folder named .gitmodules: git reads only a file there" });
          else if (newMode === SYMLINK_ENTRY_MODE)
            add({ path: showText(path), rule: "gitmodules", detail: "a .gitmodules that is a symbolic link (git refuses it)" });
        }
        if (isDotGitattributes(name)) {
          if (!policy.gitattributes)
            add({ path: showText(path), rule: "gitattributes", detail: "a .gitattributes changes; config allow: [gitattributes] lets it" });
          else if (!last) add({ path: showText(path), rule: "gitattributes", detail: "a folder named .gitattributes: git reads only a file there" });
          else if (newMode === SYMLINK_ENTRY_MODE)
            add({ path: showText(path), rule: "gitattributes", detail: "a .gitattributes that is a symbolic link (git refuses it)" });
        }
      });
    }
  }
  return out;
}

/** New content of allowed `.gitmodules` and `.gitattributes` files that git's fsck refuses. */
async function contentViolations(input: {
  git: Git;
  call: GitCallFor;
  policy: GatePolicy;
  changes: readonly Change[];
  blobSizes: ReadonlyMap<string, number>;
}): Promise<GateViolation[]> {
  const last = (path: string) => Buffer.from(path.slice(path.lastIndexOf("/") + 1), "utf8");
  const fresh = input.changes.filter(
    (c) => c.newOid !== null && c.newMode !== SYMLINK_ENTRY_MODE && c.newMode !== GITLINK_MODE && input.blobSizes.has(c.newOid),
  );
  const modules = input.policy.submodules ? fresh.filter((c) => isDotGitmodules(last(c.path))) : [];
  const attributes = input.policy.gitattributes ? fresh.filter((c) => isDotGitattributes(last(c.path))) : [];
  const out: GateViolation[] = [];
  for (const c of modules) {
    const listed = await input.git({ ...input.call(["config", "--no-includes", "--blob", c.newOid!, "--list", "-z"]), okCodes: [1, 3, 128] });
    const problems = listed.code === 0 ? gitmodulesProblems(parseConfigList(listed.stdout.toString("utf8"))) : ["git cannot parse it as a config file"];
    for (const problem of problems) out.push({ path: showText(c.path), rule: "gitmodules", detail: problem });
  }
  const readable = attributes.filter((c) => {
    if ((input.blobSizes.get(c.newOid!) ?? 0) <= ATTR_MAX_FILE_SIZE) return true;
    out.push({ path: showText(c.path), rule: "gitattributes", detail: `larger than ${ATTR_MAX_FILE_SIZE} bytes: git does not read it` });
    return false;
  });
  if (readable.length > 0) {
    const { stdout } = await input.git(input.call(["cat-file", "--batch"], { input: readable.map((c) => `${c.newOid}\n`).join("") }));
    let at = 0;
    for (const c of readable) {
      const eol = stdout.indexOf(0x0a, at);
      const size = Number(stdout.subarray(at, eol).toString("latin1").split(" ")[2]);
      const problem = gitattributesProblem(stdout.subarray(eol + 1, eol + 1 + size));
      if (problem !== null) out.push({ path: showText(c.path), rule: "gitattributes", detail: problem });
      at = eol + 1 + size + 1;
    }
  }
  return out;
}

/** A path of `diff-tree` for a report: JSON-quoted when it holds control characters. */
function showText(path: string): string {
  return /[\u0000-\u001f\u007f]/.test(path) ? JSON.stringify(path) : path;
}
