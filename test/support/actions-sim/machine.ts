/**
 * A job's runner machine. On GitHub every job gets its own virtual machine, thrown away when
 * the job ends: a process left behind by one job never sees another job's token. The simulator
 * models that boundary with Linux namespaces when it runs as root: each job gets a PID
 * namespace (its own `/proc`; everything in it dies with the job) and a mount namespace where
 * the temp folder and the home folder are private (the fake GitHub's repositories, other jobs'
 * folders and the host's home are not visible) and `readOnly` folders (the action's repository)
 * cannot be changed; `/dev/net/tun` is open to every user, as on a runner. Steps run as an
 * unprivileged user without capabilities, so they cannot undo those mounts. Without namespaces (`isolation: "none"`) steps are plain child processes
 * and `close()` kills what carries the job's `RUNNER_TRACKING_ID`, as the real runner does.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { readdir, readFile, readlink } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";

export type Isolation = "namespace" | "none";

export interface ExecResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly output: string;
}

export interface Machine {
  readonly isolation: Isolation;
  /** The uid and gid steps run as (chown the job's folders to them). */
  readonly user: { readonly uid: number; readonly gid: number } | null;
  /** Runs `argv` in the machine; stdout and stderr are interleaved into `output`. */
  exec(input: { argv: readonly string[]; cwd: string; env: Readonly<Record<string, string>>; input?: string }): Promise<ExecResult>;
  /** Ends the machine: every process started in it is killed. Resolves with how many were still running. */
  close(): Promise<number>;
}

const NOBODY = { uid: 65534, gid: 65534 };
// Every folder the job sees is staged under a private /mnt, the temp and home folders are
// covered, then the staged folders are put back at their own paths (read-only where asked).
const SETUP = `set -e
mount --make-rprivate /
mount -t tmpfs sim-stage /mnt
i=0
for spec in "$@"; do
  i=$((i+1)); mkdir "/mnt/$i"; mount --bind "\${spec#*:}" "/mnt/$i"
done
mount -t tmpfs -o mode=1777 sim-tmp "$SIM_TMP"
if [ -d "$SIM_HOME" ]; then mount -t tmpfs sim-home "$SIM_HOME"; fi
i=0
for spec in "$@"; do
  i=$((i+1)); dir="\${spec#*:}"; mkdir -p "$dir"; mount --bind "/mnt/$i" "$dir"
  if [ "\${spec%%:*}" = ro ]; then mount -o remount,bind,ro "$dir"; fi
done
umount -l /mnt
# A runner's /dev/net/tun is open to its user (Ubuntu's udev rule makes it 0666): slirp4netns,
# the agents' own network, needs it. This machine's may be root's only.
if [ -d /dev/net ]; then mount -t tmpfs -o mode=755 sim-net /dev/net && mknod -m 666 /dev/net/tun c 10 200 || true; fi
echo ready
exec sleep infinity
`;

let namespacesWork: boolean | undefined;

/** Whether this machine can give jobs namespaces: root, and `unshare`/`nsenter`/`setpriv` present and allowed. */
export function canIsolate(): boolean {
  if (namespacesWork !== undefined) return namespacesWork;
  if (process.getuid?.() !== 0) return (namespacesWork = false);
  const probe = spawnSync("unshare", ["--mount", "--pid", "--fork", "--mount-proc", "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "true"], {
    stdio: "ignore",
  });
  return (namespacesWork = probe.status === 0);
}

function collect(child: ChildProcess, input: string | undefined): Promise<ExecResult> {
  const chunks: Buffer[] = [];
  child.stdout?.on("data", (c: Buffer) => chunks.push(c));
  child.stderr?.on("data", (c: Buffer) => chunks.push(c));
  child.stdin?.on("error", () => {});
  child.stdin?.end(input ?? "");
  return new Promise((resolve) => {
    const finish = (code: number | null, signal: NodeJS.Signals | null) => resolve({ code, signal, output: Buffer.concat(chunks).toString("utf8") });
    child.on("error", (error) => {
      chunks.push(Buffer.from(`${String(error)}\n`));
      finish(null, null);
    });
    // The step ends when its process exits, as on the runner: a background process that still
    // holds the output pipes must not keep the step open. Drain briefly, then let go.
    child.on("exit", (code, signal) => {
      const timer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish(code, signal);
      }, 300);
      child.on("close", () => {
        clearTimeout(timer);
        finish(code, signal);
      });
    });
  });
}

/**
 * Starts a machine for one job whose folders all live under `jobDir`; `readOnly` folders (the
 * action's repository) are visible read-only, even when they live in the temp folder.
 */
export async function startMachine(input: {
  jobDir: string;
  trackingId: string;
  isolation: Isolation;
  readOnly: readonly string[];
  /** Folders visible and writable in every job: a test's window into the machines. */
  shared?: readonly string[];
}): Promise<Machine> {
  if (input.isolation === "none") return plainMachine(input.trackingId);
  const specs = [`rw:${input.jobDir}`, ...(input.shared ?? []).map((dir) => `rw:${dir}`), ...input.readOnly.map((dir) => `ro:${dir}`)];
  const holder = spawn("unshare", ["--mount", "--pid", "--fork", "--mount-proc", "--kill-child", "sh", "-c", SETUP, "sh", ...specs], {
    env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", SIM_TMP: tmpdir(), SIM_HOME: homedir() },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const ready = await new Promise<string>((resolve) => {
    let text = "";
    const done = (why: string) => resolve(why);
    holder.stdout.on("data", (c: Buffer) => {
      text += c.toString();
      if (text.includes("ready")) done("ready");
    });
    holder.stderr.on("data", (c: Buffer) => (text += c.toString()));
    holder.on("close", () => done(text));
  });
  if (ready !== "ready") throw new Error(`the job's machine did not start: ${ready}`);
  const init = Number((await readFile(`/proc/${holder.pid}/task/${holder.pid}/children`, "utf8")).trim().split(/\s+/)[0]);
  if (!Number.isInteger(init) || init <= 0) throw new Error(`the job's machine has no init process (unshare pid ${String(holder.pid)})`);
  return {
    isolation: "namespace",
    user: NOBODY,
    exec: ({ argv, cwd, env, input: stdin }) => {
      // nsenter's --wd would open the folder in the host's view (private parents): cd inside instead.
      const enter = ["--target", String(init), "--pid", "--mount", "--"];
      const drop = [
        "setpriv",
        `--reuid=${NOBODY.uid}`,
        `--regid=${NOBODY.gid}`,
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
        "--",
      ];
      const child = spawn("nsenter", [...enter, ...drop, "env", `--chdir=${cwd}`, ...argv], { env: { ...env }, stdio: ["pipe", "pipe", "pipe"] });
      return collect(child, stdin);
    },
    close: async () => {
      const running = await countInNamespace(init);
      try {
        // SIGKILL to a PID namespace's init kills every process in the namespace.
        process.kill(init, "SIGKILL");
      } catch {
        // Already gone.
      }
      await new Promise<void>((resolve) => (holder.exitCode !== null ? resolve() : holder.on("close", () => resolve())));
      return running;
    },
  };
}

/** Live processes (not zombies) in the PID namespace of `init`, init itself not counted. */
async function countInNamespace(init: number): Promise<number> {
  const namespace = await readlink(`/proc/${init}/ns/pid`).catch(() => null);
  if (namespace === null) return 0;
  let count = 0;
  for (const pid of await readdir("/proc").catch(() => [] as string[])) {
    if (!/^\d+$/.test(pid) || Number(pid) === init) continue;
    if ((await readlink(`/proc/${pid}/ns/pid`).catch(() => null)) !== namespace) continue;
    const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    if (state !== "" && state !== "Z" && state !== "X") count++;
  }
  return count;
}

function plainMachine(trackingId: string): Machine {
  return {
    isolation: "none",
    user: null,
    exec: ({ argv, cwd, env, input }) => {
      const [command = "", ...args] = argv;
      return collect(spawn(command, args, { cwd, env: { ...env }, stdio: ["pipe", "pipe", "pipe"] }), input);
    },
    close: async () => {
      let killed = 0;
      for (const pid of await readdir("/proc").catch(() => [] as string[])) {
        if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
        const environ = await readFile(`/proc/${pid}/environ`, "utf8").catch(() => "");
        if (!environ.split("\0").includes(`RUNNER_TRACKING_ID=${trackingId}`)) continue;
        try {
          process.kill(Number(pid), "SIGKILL");
          killed++;
        } catch {
          // Gone meanwhile.
        }
      }
      return killed;
    },
  };
}
