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
import { bwrapLaunch } from "./bwrap-launch.ts";
import { findProgram } from "./find-program.ts";
import { DEFAULT_LIMITS, prlimitArgs } from "./limits.ts";
import { notStarted, runProcess, type ProcessDeps } from "./run-process.ts";
import { becomeUser, capabilityArgs, handOver, parentDirs, sandboxUserFor, type SandboxUser } from "./sandbox-user.ts";
import type { NetworkSupport, ProcessRun, Sandbox, SandboxRun } from "./sandbox.ts";
import { decideReach, reachFor, type ReachNet } from "./reach.ts";
import { sharedUserPool, type UserLease, type UserPool } from "./user-pool.ts";
import { blockedDestinations, type UserNet } from "./user-net.ts";
import { readResolvConf, shownInside, type ResolvConf, type SystemEntry } from "./system-paths.ts";

/** What bwrapArgs needs of the machine: its system paths, and who the command runs as (see sandbox-user.ts). */
export interface BwrapSetup {
  readonly system: readonly SystemEntry[];
  /** Who the command runs as (null: naruto's own user). */
  readonly user: SandboxUser;
  /** naruto's own user: who the command runs as in a network of its own, when `user` is null. */
  readonly self?: { readonly uid: number; readonly gid: number };
  readonly resolv?: ResolvConf;
  /** Whether bwrap sizes a tmpfs (`--size`, bubblewrap 0.7.0 and later). */
  readonly tmpfsSize?: boolean;
  /** `prlimit` (util-linux), which sets the kernel's side of the limits; null: only naruto's watch. */
  readonly prlimit?: string | null;
}

/** The flags that make a user namespace whose user is `user` (none for null). */
function userArgs(user: { readonly uid: number; readonly gid: number } | null): string[] {
  return user === null ? [] : ["--unshare-user", "--uid", String(user.uid), "--gid", String(user.gid)];
}

/**
 * The descriptors bwrap talks through (see bwrap-launch.ts): where it says its child's pid
 * (`info`), and in a network of the command's own, what it waits on before the command starts
 * (`block`) and where the command's resolv.conf comes from (`resolv`).
 */
export type BwrapChannels = { readonly info: number } & (
  | { readonly network: "shared" }
  | { readonly network: "own"; readonly block: number; readonly resolv: number }
);

/**
 * The bwrap arguments for one run (pure). Later binds are mounted over earlier ones, so the
 * read-write folders come last: a `read:` path that holds the work directory cannot make it
 * read-only, and nothing read-only can be bound over the work directory.
 *
 * In a network of its own (`channels.network === "own"`) this bwrap runs inside the outer layer
 * (user-net.ts). For naruto's own user that layer is a user namespace whose user 0 is naruto's
 * user, so this bwrap makes a user namespace of its own and names naruto's uid in it; as root
 * the layer is only a network namespace, and the command becomes the sandbox user as always.
 */
export function bwrapArgs(request: SandboxRun, setup: BwrapSetup, channels: BwrapChannels = { info: 3, network: "shared" }): string[] {
  const dir = request.workDir;
  const limits = request.limits ?? DEFAULT_LIMITS;
  const own = channels.network === "own";
  const ownUser = own && setup.user === null ? (setup.self ?? null) : null;
  const size = (bytes: number) => (setup.tmpfsSize ? ["--size", String(bytes)] : []);
  const args = [
    "--die-with-parent",
    "--new-session",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    ...userArgs(ownUser),
    ...(request.network === false ? ["--unshare-net"] : []),
    ...capabilityArgs(setup.user),
    "--hostname",
    "naruto",
    "--info-fd",
    String(channels.info),
  ];
  for (const entry of setup.system) {
    if (own && entry.kind === "dir" && entry.path === setup.resolv?.dir) continue;
    if (entry.kind === "symlink") args.push("--symlink", entry.target, entry.path);
    else args.push("--ro-bind", entry.path, entry.path);
  }
  let resolvFile: string | null = null;
  if (channels.network === "own") {
    const resolv = setup.resolv ?? { file: "/etc/resolv.conf", dir: null };
    if (resolv.dir !== null) args.push("--dir", resolv.dir);
    resolvFile = resolv.file;
    // bwrap makes the file 0600, its own: the sandbox user (naruto as root) must read it too.
    args.push("--perms", "0644", "--ro-bind-data", String(channels.resolv), resolv.file, "--block-fd", String(channels.block));
  }
  // /dev is read-only: its tmpfs held whatever the command wrote there, in memory, unbounded.
  // Root's tmpfs folders would be root's alone: the sandbox user gets them as anyone does.
  const open = setup.user === null ? [] : ["--perms", "01777"];
  args.push(
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    ...open,
    ...size(limits.tmp),
    "--tmpfs",
    "/dev/shm",
    "--remount-ro",
    "/dev",
    ...open,
    ...size(limits.tmp),
    "--tmpfs",
    "/tmp",
  );
  if (setup.user !== null) {
    // bwrap makes the folders above a bind 0700, for root alone: the sandbox user must cross them.
    const shown = [...setup.system.filter((s) => !(own && s.path === setup.resolv?.dir)).map((s) => s.path), "/proc", "/dev"];
    const bound = [
      ...dir.startObjects,
      ...(request.readOnly ?? []),
      ...(request.links ?? []).map((l) => l.path),
      dir.path,
      dir.home,
      dir.io,
      ...(resolvFile === null ? [] : [resolvFile]),
    ];
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
  args.push("--chdir", dir.path, "--");
  // The limits first, while the sandbox is still root's (as root), then the change of user.
  if (setup.prlimit) args.push(setup.prlimit, ...prlimitArgs(limits), "--");
  args.push(...becomeUser(setup.user), "sh", "-c", request.command);
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
  /** As root without `user`: where each run's own user comes from (default this process's pool, user-pool.ts). */
  readonly users?: UserPool;
  /** Where the command's resolver file is (default: read once). */
  readonly resolv?: ResolvConf;
  /**
   * The command's own network (user-net.ts) for `network: true`; absent or null: the host's, and
   * `hostNetworkReason` says why (in the description).
   */
  readonly net?: UserNet | null;
  readonly hostNetworkReason?: string;
  /** `prlimit` (default: found on PATH); null: the kernel's side of the limits is not set. */
  readonly prlimit?: string | null;
  readonly deps?: ProcessDeps;
}

/** `bubblewrap 0.8.0` → [0, 8, 0]. */
export function bwrapVersion(version: string): [number, number, number] {
  const [major = 0, minor = 0, patch = 0] = (/(\d+)\.(\d+)(?:\.(\d+))?/.exec(version) ?? []).slice(1).map((n) => Number(n ?? 0));
  return [major, minor, patch];
}

export function createBwrapSandbox(options: BwrapOptions): Sandbox {
  const binary = options.binary ?? "bwrap";
  const [major, minor] = bwrapVersion(options.version);
  const self = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
  const net = options.net ?? null;
  const fixed = options.user === undefined ? sandboxUserFor(process.getuid?.()) : options.user;
  const pool = options.user === undefined && fixed !== null ? (options.users ?? sharedUserPool()) : null;
  const setup = (resolv: ResolvConf, prlimit: string | null): BwrapSetup => ({
    system: options.system,
    user: fixed,
    self,
    resolv,
    tmpfsSize: major > 0 || minor >= 7,
    prlimit,
  });
  // Read once, on the first run.
  let ready: Promise<BwrapSetup> | null = null;
  // Work directories already given to a sandbox user, and to which: an attempt's verify runs where its agent did.
  const handedOver = new Map<string, number>();
  const network: NetworkSupport =
    net === null
      ? { kind: "host", reason: options.hostNetworkReason ?? "no network of its own was set up" }
      : {
          kind: "isolated",
          via: `${net.version}, the internet without the host`,
          gap: net.ip === null ? "without `ip` (iproute2) the host's own addresses and the LAN stay in the agents' reach: install iproute2" : null,
        };
  return {
    kind: "bwrap",
    // The result's `sandbox` (and the report's) stays `bwrap 0.8.0`; what the network is, `network` says.
    description: options.version.replace(/^bubblewrap/, "bwrap").trim() || "bwrap",
    runsAsRoot: false,
    network,
    async refusedReach(urls) {
      const decided = net === null ? null : await decideReach(urls, ownNet(net));
      return decided === null || decided.ok ? null : decided.reason;
    },
    async run(request: SandboxRun): Promise<ProcessRun> {
      ready ??= Promise.all([
        options.resolv ?? readResolvConf(),
        options.prlimit === undefined ? findProgram("prlimit", request.env.PATH).then(shownInside) : options.prlimit,
      ]).then(([r, p]) => setup(r, p));
      const dir = request.workDir;
      let lease: UserLease | null = null;
      try {
        lease = pool === null ? null : await pool.lease(handedOver.get(dir.root));
      } catch (error) {
        return notStarted(error instanceof Error ? error.message : String(error));
      }
      try {
        return await runAs({ ...(await ready), user: lease?.user ?? fixed }, request);
      } finally {
        await lease?.release();
      }
    },
  };

  async function runAs(ran: BwrapSetup, request: SandboxRun): Promise<ProcessRun> {
    const dir = request.workDir;
    const fresh = ran.user !== null && handedOver.get(dir.root) !== ran.user.uid;
    try {
      await handOver(ran.user, { trees: fresh ? [dir.path, dir.home] : [], files: request.outputs ?? [] });
    } catch (error) {
      return notStarted(`its folders could not be given to the user it runs as: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (ran.user !== null) handedOver.set(dir.root, ran.user.uid);
    const own = request.network === true ? net : null;
    // The endpoints it was given that its own network cannot reach, carried in (reach.ts).
    const reach = own === null ? { ok: true as const, host: null } : await reachFor(request.reach ?? [], ownNet(own));
    if (!reach.ok) return notStarted(reach.reason);
    try {
      const launch = bwrapLaunch({
        binary,
        request,
        setup: ran,
        net: own,
        relay: reach.host?.spec ?? null,
        ...(options.deps?.kill ? { kill: options.deps.kill } : {}),
      });
      const run = await runProcess(launch, request, options.deps);
      const limit = run.limit ?? (run.timedOut || run.cancelled ? null : launch.ended(run.exitCode));
      return { ...run, limit };
    } finally {
      await reach.host?.stop();
    }
  }
}

/** What reach.ts needs of the command's own network. */
function ownNet(net: UserNet): ReachNet {
  return { ip: net.ip !== null, blocked: blockedDestinations() };
}
