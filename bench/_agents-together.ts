/**
 * What agents cost each other, without naruto: the same sandboxed agent run alone and four at
 * once, each in a work directory of its own, in the order 1, 4, 4, 1 (means of each). Four
 * Node.js agents starting together on two cores take longer than one, whatever starts them
 * (their start-ups, and the sandbox's namespaces, compete for the cores): that much of the gap
 * between `bench local speedup` and its ceiling is not naruto's.
 */
import { performance } from "node:perf_hooks";
import type { Sandbox } from "../src/sandbox/sandbox.ts";
import { createWorkDir, type WorkDir } from "../src/sandbox/work-dir.ts";
import { missionWorkFolder, workRepo } from "../src/sandbox/work-root.ts";
import { removeMissionFolder } from "../src/sandbox/remove-work-dir.ts";
import { testGit, type TestRepo } from "../test/support/git-repo.ts";

export async function agentsTogether(input: {
  sandbox: Sandbox;
  repo: TestRepo;
  command: string;
  workRoot: string;
  readOnly: readonly string[];
}): Promise<{ alone: number; together: number }> {
  const git = testGit(() => undefined);
  const repo = await workRepo(git, input.repo.dir);
  const folder = missionWorkFolder(input.workRoot, repo, "bench-together");
  const head = await input.repo.run("rev-parse", "HEAD");
  const run = async (dir: WorkDir) => {
    const ran = await input.sandbox.run({
      command: input.command,
      workDir: dir,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      network: false,
      readOnly: input.readOnly,
      timeoutMs: 60_000,
    });
    if (ran.exitCode !== 0) throw new Error(`the agent failed outside naruto (exit ${ran.exitCode ?? ran.signal ?? "?"}): ${ran.output.slice(-500)}`);
  };
  const timed = async (work: () => Promise<unknown>) => {
    const start = performance.now();
    await work();
    return (performance.now() - start) / 1000;
  };
  try {
    const dirs: WorkDir[] = [];
    for (let i = 0; i < 4; i++) {
      dirs.push(
        await createWorkDir({ git, repo, folder, label: `agent.${i}`, commit: head, record: { mission: "bench-together", purpose: "bench", attempt: null } }),
      );
    }
    const all = () => Promise.all(dirs.map(run));
    const [alone1, together1, together2, alone2] = [await timed(() => run(dirs[0]!)), await timed(all), await timed(all), await timed(() => run(dirs[0]!))];
    return { alone: (alone1 + alone2) / 2, together: (together1 + together2) / 2 };
  } finally {
    await removeMissionFolder(folder);
  }
}
