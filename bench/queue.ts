/**
 * The merge queue against the naive alternative (DESIGN.md §12): a ~5,000-file repository,
 * 200 checkpoints on disjoint files, integrated by naruto's queue and by a `git cherry-pick`
 * loop in a work tree, measured in the same run; both must end in the same tree. Then the
 * verify-run cost of batches with 0, 1 and 2 failing checkpoints (a check that is red when the
 * candidate holds a `fail-*` file).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createTestRepo, type TestRepo } from "../test/support/git-repo.ts";
import { writeCheckpoints, writeCommits, type CommitSpec } from "../test/support/checkpoint-builder.ts";
import { createQueueBranch, integrate } from "../src/queue/queue.ts";
import type { VerifyCandidate } from "../src/queue/verify.ts";

const FILES = 5000;
const CHECKPOINTS = 200;
const fileName = (i: number) => `src/module-${i % 50}/file-${i}.ts`;
const content = (i: number, tag: string) => `// file ${i}\nexport const value${i} = ${JSON.stringify(tag)};\n`.repeat(4);

async function seed(repo: TestRepo): Promise<string> {
  const root = await repo.run("rev-parse", "HEAD");
  const files = Object.fromEntries(Array.from({ length: FILES }, (_, i) => [fileName(i), content(i, "base")]));
  const [base = ""] = await writeCommits(repo.git, repo.dir, [{ base: root, files, message: "5,000 files\n" }]);
  return base;
}

function specs(base: string, failing: readonly number[] = []): CommitSpec[] {
  return Array.from({ length: CHECKPOINTS }, (_, c) => {
    const i = c * Math.floor(FILES / CHECKPOINTS);
    const extra = failing.includes(c) ? { [`fail-${c}.txt`]: "breaks verification\n" } : {};
    return { base, item: `item-${c}`, files: { [fileName(i)]: content(i, `item ${c}`), ...extra } };
  });
}

async function cherryPickLoop(repo: TestRepo, base: string, commits: readonly string[]): Promise<{ seconds: number; tree: string }> {
  const dir = await mkdtemp(join(tmpdir(), "naruto-bench-wt-"));
  await rm(dir, { recursive: true });
  await repo.run("worktree", "add", "--detach", dir, base);
  try {
    const start = performance.now();
    for (const commit of commits) await repo.git({ args: ["cherry-pick", "--allow-empty", commit], cwd: dir });
    const seconds = (performance.now() - start) / 1000;
    const tree = (await repo.git({ args: ["rev-parse", "HEAD^{tree}"], cwd: dir })).stdout.toString().trim();
    return { seconds, tree };
  } finally {
    await repo.run("worktree", "remove", "--force", dir);
  }
}

async function verifyRuns(repo: TestRepo, base: string, mission: string, failing: readonly number[]): Promise<number> {
  const { ref } = await createQueueBranch({ git: repo.git, repoDir: repo.dir, mission, base });
  const checkpoints = await writeCheckpoints(repo.git, repo.dir, specs(base, failing));
  const verify: VerifyCandidate = async (commit) => {
    const names = await repo.run("ls-tree", "--name-only", commit);
    return { exitCode: names.split("\n").some((n) => n.startsWith("fail-")) ? 1 : 0, output: "" };
  };
  const batch = await integrate({ git: repo.git, repoDir: repo.dir, queueRef: ref, checkpoints, verify });
  const failed = batch.results.flatMap((r, i) => (r.status === "verify_failed" ? [i] : []));
  if (failed.join() !== failing.join()) throw new Error(`bisection found [${failed.join()}], expected [${failing.join()}]`);
  return batch.verifyRuns;
}

export async function run(): Promise<void> {
  const repo = await createTestRepo({ "README.md": "# bench\n" });
  try {
    const base = await seed(repo);
    const checkpoints = await writeCheckpoints(repo.git, repo.dir, specs(base));
    const { ref } = await createQueueBranch({ git: repo.git, repoDir: repo.dir, mission: "m-bench", base });

    const start = performance.now();
    const batch = await integrate({ git: repo.git, repoDir: repo.dir, queueRef: ref, checkpoints });
    const narutoSeconds = (performance.now() - start) / 1000;
    if (batch.results.some((r) => r.status !== "integrated")) throw new Error("not every checkpoint integrated");

    const picked = await cherryPickLoop(
      repo,
      base,
      checkpoints.map((c) => c.commit),
    );
    const queueTree = await repo.run("rev-parse", `${ref}^{tree}`);
    if (picked.tree !== queueTree) throw new Error(`trees differ: queue ${queueTree}, cherry-pick ${picked.tree}`);
    const speedup = picked.seconds / narutoSeconds;

    const runs0 = await verifyRuns(repo, base, "m-v0", []);
    const runs1 = await verifyRuns(repo, base, "m-v1", [137]);
    const runs2 = await verifyRuns(repo, base, "m-v2", [41, 163]);
    const bound = (k: number) => 2 * k * Math.ceil(Math.log2(CHECKPOINTS)) + 1;

    console.log(`${FILES} files, ${CHECKPOINTS} checkpoints on disjoint files; identical final trees (${queueTree.slice(0, 12)})`);
    console.log(`| integrate with | seconds |\n|---|---|`);
    console.log(`| naruto queue (diff-tree + ls-tree + fast-import) | ${narutoSeconds.toFixed(3)} |`);
    console.log(`| git cherry-pick loop in a work tree | ${picked.seconds.toFixed(3)} |`);
    console.log(`| failing checkpoints | verify runs | bound 2·k·⌈log2 n⌉+1 |\n|---|---|---|`);
    for (const [k, runs] of [
      [0, runs0],
      [1, runs1],
      [2, runs2],
    ] as const)
      console.log(`| ${k} | ${runs} | ${bound(k)} |`);
    console.log(`bench queue naruto_seconds=${narutoSeconds.toFixed(3)}`);
    console.log(`bench queue cherry_pick_seconds=${picked.seconds.toFixed(3)}`);
    console.log(`bench queue speedup_vs_cherry_pick=${speedup.toFixed(1)}`);
    console.log(`bench queue verify_runs_0_fail=${runs0}`);
    console.log(`bench queue verify_runs_1_fail=${runs1}`);
    console.log(`bench queue verify_runs_2_fail=${runs2}`);
  } finally {
    await repo.remove();
  }
}
