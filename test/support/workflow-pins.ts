/**
 * What a pinned workflow looks like, as data: every `uses:` of every job (a reusable workflow's
 * job-level one and each step's) with the text that follows it on its line, and the rules it
 * must meet. A tag or branch can be moved to other code after review, and that code then runs
 * with the job's token; a full commit SHA cannot (GitHub's security hardening guide). The
 * `# vX.Y.Z` comment says which release the SHA is, and is what Dependabot keeps current.
 */
import { isMap, isScalar, isSeq, parseDocument } from "yaml";

export interface WorkflowFile {
  /** As the reader should see it, e.g. `templates/naruto.yml`. */
  readonly file: string;
  readonly text: string;
}

export interface UsesEntry {
  readonly file: string;
  readonly job: string;
  /** `step 2 "naruto sandbox"`, `step 3 (id naruto)`, or null for a job's own `uses:`. */
  readonly step: string | null;
  readonly value: string;
  /** What follows the value on its line, e.g. ` # v4.4.0`. */
  readonly rest: string;
}

const REMOTE = /^[A-Za-z0-9](?:[A-Za-z0-9-]*)\/[A-Za-z0-9._-]+(?:\/[^@\s]+)?@[0-9a-f]{40}$/;
const LOCAL = /^\.\/\S*$/;
const DOCKER = /^docker:\/\/[^@\s]+@sha256:[0-9a-f]{64}$/;
const VERSION_COMMENT = /^[ \t]+#[ \t]*(v\d+\.\d+\.\d+)[ \t]*$/;

export function where(entry: UsesEntry): string {
  return `${entry.file}: job ${entry.job}${entry.step === null ? "" : `, ${entry.step}`}: uses: ${entry.value}`;
}

/** Every `uses:` of a workflow, or why the file could not be read as one. */
export function listUses({ file, text }: WorkflowFile): { entries: UsesEntry[]; problems: string[] } {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) return { entries: [], problems: [`${file}: not valid YAML: ${doc.errors[0]?.message ?? ""}`] };
  const jobs = doc.get("jobs", true);
  if (!isMap(jobs)) return { entries: [], problems: [`${file}: no jobs: mapping`] };
  const entries: UsesEntry[] = [];
  const problems: string[] = [];
  const read = (node: unknown, job: string, step: string | null): void => {
    if (node === undefined || node === null) return;
    if (!isScalar(node) || typeof node.value !== "string" || node.range == null) {
      problems.push(`${file}: job ${job}${step === null ? "" : `, ${step}`}: uses: is not a string`);
      return;
    }
    const lineEnd = text.indexOf("\n", node.range[1]);
    entries.push({ file, job, step, value: node.value, rest: text.slice(node.range[1], lineEnd < 0 ? text.length : lineEnd) });
  };
  for (const pair of jobs.items) {
    const job = String(isScalar(pair.key) ? pair.key.value : pair.key);
    if (!isMap(pair.value)) continue;
    read(pair.value.get("uses", true), job, null);
    const steps = pair.value.get("steps", true);
    if (!isSeq(steps)) continue;
    steps.items.forEach((step, index) => {
      if (!isMap(step)) return;
      const name = step.get("name");
      const id = step.get("id");
      const label = `step ${index + 1}${typeof name === "string" ? ` "${name}"` : typeof id === "string" ? ` (id ${id})` : ""}`;
      read(step.get("uses", true), job, label);
    });
  }
  return { entries, problems };
}

/** The release a pinned entry's comment names, or null. */
export function versionOf(entry: UsesEntry): string | null {
  return VERSION_COMMENT.exec(entry.rest)?.[1] ?? null;
}

/** `owner/repo` and the commit of a remote `uses:` pinned by SHA, else null. */
export function pinnedCommit(entry: UsesEntry): { repo: string; sha: string } | null {
  if (!REMOTE.test(entry.value)) return null;
  const at = entry.value.lastIndexOf("@");
  return { repo: entry.value.slice(0, at).split("/").slice(0, 2).join("/"), sha: entry.value.slice(at + 1) };
}

/** Why one `uses:` is not pinned, or null when it is. */
export function pinProblem(entry: UsesEntry): string | null {
  if (LOCAL.test(entry.value) || DOCKER.test(entry.value)) return null;
  if (entry.value.startsWith("docker://")) return `${where(entry)}: an image must be pinned by digest (docker://…@sha256:<64 hex>)`;
  if (!REMOTE.test(entry.value)) return `${where(entry)}: not pinned to a full commit SHA (owner/repo[/path]@<40 lowercase hex>)`;
  if (versionOf(entry) === null)
    return `${where(entry)}: the SHA needs its release on the same line, as \`# vX.Y.Z\` (found ${JSON.stringify(entry.rest.trim())})`;
  return null;
}

/** One release per commit of an action, and one commit per release, across every file. */
export function consistencyProblems(entries: readonly UsesEntry[]): string[] {
  const problems: string[] = [];
  const byCommit = new Map<string, UsesEntry>();
  const byRelease = new Map<string, UsesEntry>();
  for (const entry of entries) {
    const pin = pinnedCommit(entry);
    const version = versionOf(entry);
    if (pin === null || version === null) continue;
    const sameCommit = byCommit.get(`${pin.repo}@${pin.sha}`);
    const sameRelease = byRelease.get(`${pin.repo}@${version}`);
    if (sameCommit !== undefined && versionOf(sameCommit) !== version) {
      problems.push(`${where(entry)} # ${version}: the same commit is # ${versionOf(sameCommit) ?? "?"} in ${where(sameCommit)}; one commit is one release`);
    }
    if (sameRelease !== undefined && pinnedCommit(sameRelease)?.sha !== pin.sha) {
      problems.push(`${where(entry)} # ${version}: ${version} is another commit in ${where(sameRelease)}; one release is one commit`);
    }
    byCommit.set(`${pin.repo}@${pin.sha}`, sameCommit ?? entry);
    byRelease.set(`${pin.repo}@${version}`, sameRelease ?? entry);
  }
  return problems;
}

/** Everything wrong with the pins of these workflows; empty when every `uses:` is pinned. */
export function workflowPinProblems(files: readonly WorkflowFile[]): { entries: UsesEntry[]; problems: string[] } {
  const listed = files.map(listUses);
  const entries = listed.flatMap((l) => l.entries);
  const problems = [...listed.flatMap((l) => l.problems), ...entries.flatMap((e) => pinProblem(e) ?? []), ...consistencyProblems(entries)];
  return { entries, problems };
}
