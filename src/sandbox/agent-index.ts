/**
 * What naruto takes from the index of the agent's own repository (its `.git/index`), and nothing
 * more: the ignored files it staged or committed on purpose (still on disk), and its gitlinks.
 * A gitlink (a submodule's commit) has nothing on disk but a folder, so the index is the only
 * place it lives; it is taken from there exactly, never dropped (docs/architecture.md). The agent's
 * HEAD and history are never read.
 */
import { lstat } from "node:fs/promises";
import { join } from "node:path";
import type { Git } from "../git/index.ts";
import { viewCall, type GitView } from "./git-view.ts";
import { readUntrusted } from "./untrusted-file.ts";
import { seedIndex, type WorkDir } from "./work-dir.ts";

/** A path as git stores it, one byte per character (latin1): the agent's paths need not be UTF-8. */
export type RawPath = string;

export interface AgentIndex {
  /** Ignored files the agent staged or committed, that are still on disk. */
  readonly stagedIgnored: readonly RawPath[];
  /** Every gitlink of its index (stage 0), with the commit it names. */
  readonly gitlinks: readonly { readonly path: RawPath; readonly oid: string }[];
}

const NOTHING: AgentIndex = { stagedIgnored: [], gitlinks: [] };

/**
 * Reads the agent's index, when it is a plain file that differs from the one naruto checked the
 * directory out with (an index the agent never touched adds nothing). One that git cannot read
 * is noted and otherwise ignored.
 */
export async function readAgentIndex(git: Git, view: GitView, dir: WorkDir, notes: string[]): Promise<AgentIndex> {
  const agentIndex = join(dir.path, ".git", "index");
  const info = await lstat(agentIndex).catch(() => null);
  if (info === null || !info.isFile()) return NOTHING;
  if (await sameBytes(agentIndex, seedIndex(dir), info.size)) return NOTHING;
  const list = (args: string[]) => git(viewCall(view, ["--no-optional-locks", "ls-files", "-z", ...args], { index: agentIndex, okCodes: [128] }));
  const [ignored, staged] = await Promise.all([list(["--cached", "--ignored", "--exclude-standard"]), list(["--stage"])]);
  if (ignored.code !== 0 || staged.code !== 0) {
    notes.push("the index of the agent's own repository could not be read; ignored files and submodules it staged were not taken");
    return NOTHING;
  }
  const present: RawPath[] = [];
  for (const path of new Set(fields(ignored.stdout))) {
    if (
      await lstat(onDisk(dir, path)).then(
        () => true,
        () => false,
      )
    )
      present.push(path);
  }
  return { stagedIgnored: present, gitlinks: parseGitlinks(fields(staged.stdout)) };
}

/** The gitlinks of `ls-files --stage -z` records (`<mode> <oid> <stage>\t<path>`), stage 0 only. */
export function parseGitlinks(records: readonly RawPath[]): { path: RawPath; oid: string }[] {
  const out: { path: RawPath; oid: string }[] = [];
  for (const record of records) {
    const tab = record.indexOf("\t");
    const [mode, oid, stage] = record.slice(0, tab).split(" ");
    if (mode === "160000" && stage === "0" && oid !== undefined) out.push({ path: record.slice(tab + 1), oid });
  }
  return out;
}

/** Where a raw path of the work directory is on disk (as bytes: the name need not be UTF-8). */
export function onDisk(dir: Pick<WorkDir, "path">, path: RawPath): Buffer {
  return Buffer.concat([Buffer.from(`${dir.path}/`), Buffer.from(path, "latin1")]);
}

function fields(out: Buffer): RawPath[] {
  return out
    .toString("latin1")
    .split("\0")
    .filter((f) => f !== "");
}

async function sameBytes(a: string, b: string, size: number): Promise<boolean> {
  const other = await lstat(b).catch(() => null);
  if (other === null || other.size !== size || size > 64 * 1024 * 1024) return false;
  // The agent's index may be anything by now (a pipe, without the sandbox): never a wait on it.
  const [x, y] = await Promise.all([readUntrusted(a, size), readUntrusted(b, size)]);
  return x.kind === "ok" && y.kind === "ok" && x.bytes.equals(y.bytes);
}
