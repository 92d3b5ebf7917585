/**
 * `naruto` as a real child process, for what only a process shows: being killed with SIGKILL,
 * and `naruto cancel` arriving from another process. Plus waiting on the stored mission.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createLocalMissionStore } from "../../src/store/git-store.ts";
import type { Mission } from "../../src/mission/document.ts";
import type { TestRepo } from "../support/git-repo.ts";
import { cliEnv } from "./cli-io.ts";

const BIN = fileURLToPath(new URL("../../bin/naruto.js", import.meta.url));

export interface Runner {
  readonly child: ChildProcess;
  /** Exit code (null when killed by a signal) and what it printed. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/**
 * Starts `naruto ARGS` in `cwd`; `options.as` runs it as another user (through `setpriv`, which
 * only root can do), for what naruto does when it is not root; `options.wrap` turns the command
 * line into the one to start (another network namespace), around `as`.
 */
export function startNaruto(
  cwd: string,
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
  options: { as?: { uid: number; gid: number }; readonly wrap?: (argv: string[]) => string[] } = {},
): Runner {
  const command = [process.execPath, BIN, ...args];
  const as = options.as;
  const asUser = as === undefined ? command : ["setpriv", `--reuid=${as.uid}`, `--regid=${as.gid}`, "--clear-groups", "--", ...command];
  const argv = (options.wrap ?? ((a) => a))(asUser);
  const child = spawn(argv[0] ?? process.execPath, argv.slice(1), { cwd, env: { ...cliEnv(), ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  const runner = { child, exited };
  outputs.set(runner, () => ({ stdout, stderr }));
  return runner;
}

const outputs = new WeakMap<Runner, () => { stdout: string; stderr: string }>();

/** What the runner printed so far. */
export function runnerOutput(runner: Runner): { stdout: string; stderr: string } {
  return outputs.get(runner)?.() ?? { stdout: "", stderr: "" };
}

/**
 * Polls the repository's only mission until `until` holds for it; throws (with the last state)
 * when it never does within `limitMs`, a generous bound, not a timing assertion. Given the
 * runner, it fails at once when the runner exits first, and either failure shows what the runner
 * printed (a loaded CI machine once saw no mission at all within 30 s, and nothing said why).
 */
export async function waitForMission(repo: TestRepo, until: (m: Mission) => boolean, limitMs = 60_000, runner?: Runner): Promise<Mission> {
  const store = createLocalMissionStore({ git: repo.git, repoDir: repo.dir });
  const deadline = Date.now() + limitMs;
  let last: Mission | null = null;
  let ended: Awaited<Runner["exited"]> | null = null;
  void runner?.exited.then(
    (e) => (ended = e),
    () => undefined,
  );
  const describe = () =>
    `${last ? JSON.stringify(last.items.map((i) => [i.id, i.status])) : "none"}${runner ? `\nrunner (${ended ? `exited ${ended.code ?? ended.signal}` : "still running"}): stdout ${JSON.stringify(runnerOutput(runner).stdout)}, stderr ${JSON.stringify(runnerOutput(runner).stderr)}` : ""}`;
  while (Date.now() < deadline) {
    const exitedBefore = ended !== null;
    const [id] = await store.list();
    last = id === undefined ? null : ((await store.load(id))?.mission ?? null);
    if (last && until(last)) return last;
    if (exitedBefore) throw new Error(`the runner exited before the mission reached the awaited state; last: ${describe()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the mission never reached the awaited state within ${limitMs} ms; last: ${describe()}`);
}

export function count(m: Mission, status: string): number {
  return m.items.filter((i) => i.status === status).length;
}
