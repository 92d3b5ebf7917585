/**
 * The explicit unsandboxed adapter: `sandbox: none`, or `auto` where bubblewrap does not work.
 * The command runs as naruto's user with the full view of the machine; only the environment is
 * built from nothing, HOME and TMPDIR are private folders of the work directory, and what the
 * command leaves running is found and killed afterwards: by a tracking variable of its own, and —
 * for a process that cleared its environment and started a session of its own — by a working
 * directory inside the work directory. A process that did both and moved away escapes; so does
 * anything the command does to files outside its work directory. The tamper record
 * (tamper-record.ts) is what catches the latter in the user's repository.
 */
import { killProcessesWithEnv, commandOf, newTrackingValue, processesInside, processesWithEnv, TRACKING_ENV } from "./leftovers.ts";
import { runProcess, type ProcessDeps } from "./run-process.ts";
import type { Leftover, ProcessRun, Sandbox, SandboxRun } from "./sandbox.ts";

export interface UnsandboxedOptions {
  /** Why there is no sandbox, for the description: `sandbox: none in the config`, `bwrap not found`. */
  readonly reason: string;
  /** naruto's uid (default `process.getuid()`): as root, commands run as root. */
  readonly uid?: number;
  readonly deps?: ProcessDeps & { readonly proc?: string };
}

export function createUnsandboxed(options: UnsandboxedOptions): Sandbox {
  const deps = options.deps ?? {};
  const kill = deps.kill ?? ((pid: number, signal: NodeJS.Signals) => void process.kill(pid, signal));
  const table = deps.proc === undefined ? {} : { proc: deps.proc };
  return {
    kind: "none",
    description: `none (${options.reason})`,
    runsAsRoot: (options.uid ?? process.getuid?.()) === 0,
    network: { kind: "host", reason: "no sandbox" },
    // The host's network reaches every endpoint as it is: nothing to carry in.
    refusedReach: async () => null,
    async run(request: SandboxRun): Promise<ProcessRun> {
      const tracking = newTrackingValue();
      const env = { ...request.env, HOME: request.workDir.home, TMPDIR: request.workDir.tmp, [TRACKING_ENV]: tracking };
      const sweep = async (): Promise<Leftover[]> => {
        const found: Leftover[] = [];
        const entry = `${TRACKING_ENV}=${tracking}`;
        for (const pid of await processesWithEnv(entry, table)) found.push({ pid, command: await commandOf(pid, table), found: "tracking_variable" });
        await killProcessesWithEnv(entry, { kill, ...table });
        for (let round = 0; round < 5; round++) {
          const inside = await processesInside(request.workDir.root, table);
          if (inside.length === 0) break;
          for (const p of inside) {
            try {
              kill(p.pid, "SIGKILL");
            } catch {
              // ESRCH: gone meanwhile.
            }
            if (!found.some((f) => f.pid === p.pid)) found.push({ ...p, found: "working_directory" });
          }
        }
        return found;
      };
      return runProcess({ file: "sh", args: ["-c", request.command], cwd: request.workDir.path, env, sweep }, request, deps);
    },
  };
}
