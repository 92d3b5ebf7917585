/**
 * The bubblewrap adapter (docs/architecture.md). The command sees:
 *
 * - the system read-only (`/usr`, `/etc`, `/opt`, … as they exist here), a new `/proc` and a
 *   minimal `/dev`, a private tmpfs at `/tmp`;
 * - its work directory and its private HOME read-write, at their own paths; the work directory's
 *   `io/` folder (naruto's prompt) read-only, with the files naruto made for the command to write
 *   (its result) bound read-write one by one (see run-files.ts);
 * - read-only: the start commit's objects (the throwaway repository borrows them: a pack of that
 *   commit and its tree, never the user's object store, see start-objects.ts), where its CLI is
 *   installed, and the profile's `read:` paths;
 * - nothing else: not the user's repository, not other work directories, not naruto's state.
 *
 * It runs in new PID, IPC and UTS namespaces (no `/proc/<pid>/environ` of anyone outside; when
 * the command exits, or naruto dies, every process it started dies with the namespace), in a
 * session of its own (no terminal to inject keystrokes into), without capabilities (as root
 * too), and without a network when the profile says `network: false`.
 *
 * When naruto runs as root (CI containers, self-hosted runners), the command runs as an
 * unprivileged host user of its own, never as root (sandbox-user.ts): root-only files stay
 * unreadable, and its own sandbox (Codex CLI's nested bwrap) still starts.
 */
import { lstat, readlink } from "node:fs/promises";
import { dirname, isAbsolute, resolve } from "node:path";
import { killProcessesWithEnv, newTrackingValue, TRACKING_ENV } from "./leftovers.ts";
import { notStarted, runProcess, type ProcessDeps } from "./run-process.ts";
import { becomeUser, capabilityArgs, handOver, parentDirs, sandboxUserFor, type SandboxUser } from "./sandbox-user.ts";
import type { ProcessRun, Sandbox, SandboxRun } from "./sandbox.ts";

/** Folders of the system a command may need, shown read-only where they exist. */
export const SYSTEM_PATHS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix/store"] as const;

/** What a system path is on this machine: a folder to bind, a symlink to recreate, or absent. */
export type SystemEntry = { readonly path: string; readonly kind: "dir" } | { readonly path: string; readonly kind: "symlink"; readonly target: string };

/** Reads what each system path is here (once per process: the system does not change under naruto). */
export async function readSystem(paths: readonly string[] = SYSTEM_PATHS): Promise<SystemEntry[]> {
  const entries: SystemEntry[] = [];
  for (const path of paths) {
    const info = await lstat(path).catch(() => null);
    if (info === null) continue;
    if (info.isSymbolicLink()) entries.push({ path, kind: "symlink", target: await readlink(path) });
    else if (info.isDirectory()) entries.push({ path, kind: "dir" });
  }
  // Ubuntu's /etc/resolv.conf points into /run: name resolution needs that folder too.
  const resolv = await readlink("/etc/resolv.conf").catch(() => null);
  if (resolv !== null) {
    const target = isAbsolute(resolv) ? resolv : resolve("/etc", resolv);
    if (!target.startsWith("/etc/")) entries.push({ path: dirname(target), kind: "dir" });
  }
  return entries;
}

/** What bwrapArgs needs of the machine: its system paths, and who the command runs as (see sandbox-user.ts). */
export interface BwrapSetup {
  readonly system: readonly SystemEntry[];
  readonly user: SandboxUser;
}

/**
 * The bwrap arguments for one run (pure). Later binds are mounted over earlier ones, so the
 * read-write folders come last: a `read:` path that holds the work directory cannot make it
 * read-only, and nothing read-only can be bound over the work directory.
 */
export function bwrapArgs(request: SandboxRun, setup: BwrapSetup): string[] {
  const dir = request.workDir;
  const args = [
    "--die-with-parent",
    "--new-session",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    ...(request.network ? [] : ["--unshare-net"]),
    ...capabilityArgs(setup.user),
    "--hostname", "naruto",
  ];
  for (const entry of setup.system) {
    if (entry.kind === "symlink") args.push("--symlink", entry.target, entry.path);
    else args.push("--ro-bind", entry.path, entry.path);
  }
  args.push("--proc", "/proc", "--dev", "/dev");
  // Root's tmpfs folders would be root's alone: the sandbox user gets them as anyone does.
  if (setup.user === null) args.push("--tmpfs", "/tmp");
  else args.push("--perms", "01777", "--tmpfs", "/tmp", "--chmod", "01777", "/dev/shm");
  if (setup.user !== null) {
    // bwrap makes the folders above a bind 0700, for root alone: the sandbox user must cross them.
    const shown = [...setup.system.map((s) => s.path), "/proc", "/dev"];
    const bound = [...dir.startObjects, ...(request.readOnly ?? []), ...(request.links ?? []).map((l) => l.path), dir.path, dir.home, dir.io];
    for (const parent of parentDirs(bound, shown)) args.push("--dir", parent);
  }
  // Before the read-only binds: a `read:` folder that holds one shows the real link instead.
  for (const link of request.links ?? []) args.push("--symlink", link.target, link.path);
  for (const objects of dir.startObjects) args.push("--ro-bind", objects, objects);
  for (const path of request.readOnly ?? []) args.push("--ro-bind-try", path, path);
  for (const rw of [dir.path, dir.home]) args.push("--bind", rw, rw);
  // naruto's own files: its folder read-only, the files it made for the command writable one by one.
  args.push("--ro-bind", dir.io, dir.io);
  for (const output of request.outputs ?? []) args.push("--bind", output, output);
  args.push("--chdir", dir.path, "--", ...becomeUser(setup.user), "sh", "-c", request.command);
  return args;
}

export interface BwrapOptions {
  /** The bwrap executable (default `bwrap` on PATH). */
  readonly binary?: string;
  /** `bubblewrap 0.8.0`, as the probe read it. */
  readonly version: string;
  readonly system: readonly SystemEntry[];
  /**
   * Who the command runs as (default: the sandbox user of sandbox-user.ts when naruto is root,
   * else naruto's own user, null).
   */
  readonly user?: SandboxUser;
  readonly deps?: ProcessDeps;
}

export function createBwrapSandbox(options: BwrapOptions): Sandbox {
  const binary = options.binary ?? "bwrap";
  const setup: BwrapSetup = { system: options.system, user: options.user === undefined ? sandboxUserFor(process.getuid?.()) : options.user };
  // Work directories already given to the sandbox user: an attempt's verify runs where its agent did.
  const handedOver = new Set<string>();
  return {
    kind: "bwrap",
    description: options.version.replace(/^bubblewrap/, "bwrap").trim() || "bwrap",
    runsAsRoot: false,
    async run(request: SandboxRun): Promise<ProcessRun> {
      const dir = request.workDir;
      const fresh = !handedOver.has(dir.root);
      try {
        await handOver(setup.user, { trees: fresh ? [dir.path, dir.home] : [], files: request.outputs ?? [] });
      } catch (error) {
        return notStarted(`its folders could not be given to the user it runs as: ${error instanceof Error ? error.message : String(error)}`);
      }
      handedOver.add(dir.root);
      // bwrap hands its own environment to the command: it is the command's, and nothing else.
      const tracking = newTrackingValue();
      const env = { ...request.env, HOME: request.workDir.home, TMPDIR: "/tmp", [TRACKING_ENV]: tracking };
      // When bwrap is gone the kernel takes the namespace down, a moment later: wait for that, so
      // that nothing of the run is left when it returns.
      const sweep = async () => {
        const entry = `${TRACKING_ENV}=${tracking}`;
        const kill = options.deps?.kill ?? ((pid: number, signal: NodeJS.Signals) => void process.kill(pid, signal));
        for (let waited = 0; waited < 5_000; waited += 20) {
          // bwrap itself (in naruto's namespace) is gone; what it started is in the new one.
          if ((await killProcessesWithEnv(entry, { kill, elsewhere: true })).length === 0) break;
          await new Promise((r) => setTimeout(r, 20));
        }
        return [];
      };
      return runProcess({ file: binary, args: bwrapArgs(request, setup), cwd: request.workDir.path, env, sweep }, request, options.deps);
    },
  };
}
