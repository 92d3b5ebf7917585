/**
 * What a process holding some job's `ACTIONS_RUNTIME_TOKEN` can upload (issue 32): an artifact
 * under any name into that job's run, while the job runs. Here, a work leg's artifact forged for
 * another leg — a checkpoint that stays inside that item's writes, whose parent is the queue head
 * and whose trailers are right, so that nothing in its content gives it away — and crafted zips
 * that upload-artifact never makes (`../` names, symbolic links, sizes past naruto's caps).
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { gitText } from "../../../src/git/run-git.ts";
import { workerBranch } from "../../../src/gate/worker-branch.ts";
import { testGit } from "../../support/git-repo.ts";
import { writeZip } from "../../support/zip.ts";

/** Uploads `zip` as artifact `name` of the token's run, which every process of that job could do. */
export async function uploadAs(input: { resultsUrl: string; runtimeToken: string; name: string; zip: Buffer; overwrite?: boolean }): Promise<number> {
  const answer = await fetch(`${input.resultsUrl}artifacts?name=${encodeURIComponent(input.name)}${input.overwrite === true ? "&overwrite=true" : ""}`, {
    method: "POST",
    headers: { authorization: `Bearer ${input.runtimeToken}`, "content-type": "application/zip" },
    body: new Uint8Array(input.zip),
  });
  await answer.body?.cancel();
  return answer.status;
}

/**
 * A forged `naruto-work-<item>-<attempt>` artifact: a checkpoint on the queue head as GitHub has
 * it, writing `path` (inside the item's writes) with `content`, with the trailers of that
 * attempt; its bundle and result as the work job writes them. Returns the zip and the commit.
 */
export async function forgedCheckpoint(input: {
  bareRepo: string;
  mission: string;
  item: string;
  attempt: number;
  path: string;
  content: string;
}): Promise<{ zip: Buffer; commit: string }> {
  const dir = await mkdtemp(join(tmpdir(), "e2e-forge-"));
  const git = testGit();
  const run = (...args: string[]) => gitText(git, { args, cwd: dir });
  try {
    await run("init", "-q");
    await run("fetch", "-q", input.bareRepo, `+refs/heads/naruto/${input.mission}:refs/queue`);
    await run("checkout", "-q", "--detach", "refs/queue");
    const base = await run("rev-parse", "HEAD");
    await mkdir(dirname(join(dir, input.path)), { recursive: true });
    await writeFile(join(dir, input.path), input.content);
    await run("add", "--", input.path);
    const message = `naruto: ${input.item}\n\nNaruto-Mission: ${input.mission}\nNaruto-Item: ${input.item}\nNaruto-Attempt: ${input.attempt}\nNaruto-Agent: default\n`;
    await run("commit", "-q", "-m", message);
    const commit = await run("rev-parse", "HEAD");
    const branch = `refs/heads/${workerBranch(input.mission, input.item)}`;
    await run("update-ref", branch, commit);
    await run("bundle", "create", "-q", join(dir, "checkpoint.bundle"), branch, `^${base}`);
    const result = {
      schema: "naruto.work-result/v1",
      mission: input.mission,
      item: input.item,
      attempt: input.attempt,
      outcome: { kind: "checkpointed", commit, base, changed: [input.path] },
      summary: "done",
      cost_usd: null,
      tokens_in: null,
      tokens_out: null,
      model: null,
      commit,
      base,
    };
    const zip = writeZip([
      { name: "checkpoint.bundle", data: await readFile(join(dir, "checkpoint.bundle")) },
      { name: "result.json", data: `${JSON.stringify(result, null, 2)}\n` },
    ]);
    return { zip, commit };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
