/**
 * A stand-in for the network an agent lives in (issue 31), made of two network namespaces of the
 * test's own: nothing of the machine's network is touched and nothing leaves the machine.
 *
 * - **host**, where naruto runs: listeners on its loopback (`127.0.0.1`), on an abstract unix
 *   socket and on every address (`0.0.0.0`, so also its own address on the LAN, 192.168.77.1);
 *   its resolver is the DNS stand-in; its only link goes to the outside.
 * - **outside**: the LAN 192.168.77.0/24 (a service at .20, the gateway at .254) and, beyond it,
 *   "the internet": the model API stand-in at 203.0.113.10 (`api.model.test` for the DNS
 *   stand-in at 203.0.113.53, documentation addresses that no real network routes) and a cloud's
 *   metadata service at 169.254.169.254.
 *
 * Each namespace is held by a process of its own ({@link holdNamespace}). Making them needs root; {@link standInNetworkSkipReason} says why a test cannot run.
 * {@link StandInNetwork.inHost} wraps a command line to run in the host, as root or as an
 * ordinary user; its mount namespace gets the stand-in's resolv.conf and, for an ordinary user,
 * a `/dev/net/tun` anyone may open, as Debian and Ubuntu have it (this machine's is root's only).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const SERVERS = fileURLToPath(new URL("./network-stand-ins.mjs", import.meta.url));

function skipReason(): string | null {
  if (process.getuid?.() !== 0) return "making network namespaces needs root (CI runs as root)";
  if (spawnSync("ip", ["-V"]).status !== 0) return "`ip` (iproute2) is not installed";
  if (spawnSync("unshare", ["--version"]).status !== 0) return "`unshare` (util-linux) is not installed";
  if (spawnSync("nsenter", ["--version"]).status !== 0) return "`nsenter` (util-linux) is not installed";
  return null;
}

/** Why the stand-in network cannot be made here; null when it can. */
export const standInNetworkSkipReason: string | null = skipReason();

export const STAND_IN = {
  modelApi: "203.0.113.10:80",
  modelApiName: "api.model.test",
  lan: "192.168.77.20:80",
  metadata: "169.254.169.254:80",
  hostAddress: "192.168.77.1:8081",
  loopbackPort: 8080,
} as const;

export interface StandInNetwork {
  /** The name of the abstract unix socket listening in the host. */
  readonly abstract: string;
  /** The command line (`nsenter …`) that runs `argv` in the host namespace, as root or as `user`. */
  inHost(argv: readonly string[], user?: { readonly uid: number; readonly gid: number }): string[];
  remove(): Promise<void>;
}

/** Runs `ip` in the network namespace `pid` is in. */
function ipIn(pid: number, ...args: string[]): void {
  const r = spawnSync("nsenter", [`--net=/proc/${pid}/ns/net`, "ip", ...args], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`ip ${args.join(" ")} (in the namespace of ${pid}): ${r.stderr.trim()}`);
}

/**
 * A new network namespace, held by a process that sleeps in it until killed: namespaces are
 * named by that process, never by `ip netns add`'s /run/netns file, whose bind mount was seen to
 * stop being a namespace (setns: EINVAL) midway through setting it up while other suites ran.
 */
function holdNamespace(): Promise<ChildProcess & { readonly pid: number }> {
  const child = spawn("unshare", ["--net", "--", "sh", "-c", "echo ready; exec sleep 86400"], { stdio: ["ignore", "pipe", "pipe"] });
  let said = "";
  child.stderr.on("data", (c: Buffer) => (said += c.toString("utf8")));
  return new Promise((resolve, reject) => {
    child.stdout.once("data", () => (child.pid === undefined ? reject(new Error("no pid")) : resolve(child as ChildProcess & { readonly pid: number })));
    child.once("exit", (code) => reject(new Error(`unshare --net exited (${code}): ${said}`)));
  });
}

function startServers(pid: number, spec: unknown): Promise<ChildProcess> {
  const child = spawn("nsenter", [`--net=/proc/${pid}/ns/net`, process.execPath, SERVERS, JSON.stringify(spec)], { stdio: ["ignore", "pipe", "pipe"] });
  let said = "";
  child.stderr.on("data", (c: Buffer) => (said += c.toString("utf8")));
  return new Promise((resolve, reject) => {
    child.stdout.once("data", () => resolve(child));
    child.once("exit", (code) => reject(new Error(`the stand-in servers in the namespace of ${pid} exited (${code}): ${said}`)));
  });
}

export async function createStandInNetwork(): Promise<StandInNetwork> {
  if (standInNetworkSkipReason !== null) throw new Error(standInNetworkSkipReason);
  const abstract = `naruto-test-${randomBytes(3).toString("hex")}`;
  const folder = await mkdtemp(join(tmpdir(), "naruto-net-"));
  const resolv = join(folder, "resolv.conf");
  await writeFile(resolv, "nameserver 203.0.113.53\n");
  const processes: ChildProcess[] = [];
  const remove = async () => {
    for (const p of processes) p.kill("SIGKILL");
    await rm(folder, { recursive: true, force: true });
  };
  let hostPid: number;
  try {
    const [host, outside] = [await holdNamespace(), await holdNamespace()];
    processes.push(host, outside);
    hostPid = host.pid;
    ipIn(host.pid, "link", "add", "vh", "type", "veth", "peer", "name", "vo", "netns", String(outside.pid));
    for (const line of [
      ["link", "set", "lo", "up"],
      ["addr", "add", "192.168.77.1/24", "dev", "vh"],
      ["link", "set", "vh", "up"],
      ["route", "add", "default", "via", "192.168.77.254"],
    ])
      ipIn(host.pid, ...line);
    for (const address of ["192.168.77.254/24", "192.168.77.20/24"]) ipIn(outside.pid, "addr", "add", address, "dev", "vo");
    for (const address of ["203.0.113.10/32", "203.0.113.53/32", "169.254.169.254/32"]) ipIn(outside.pid, "addr", "add", address, "dev", "lo");
    for (const link of ["lo", "vo"]) ipIn(outside.pid, "link", "set", link, "up");
    const says = (what: string, address: string) => ({ host: address.split(":")[0], port: Number(address.split(":")[1]), says: what });
    processes.push(
      await startServers(outside.pid, {
        tcp: [says("model-api", STAND_IN.modelApi), says("lan-service", STAND_IN.lan), says("metadata", STAND_IN.metadata)],
        dns: { host: "203.0.113.53", names: { [STAND_IN.modelApiName]: STAND_IN.modelApi.split(":")[0] } },
      }),
      await startServers(host.pid, {
        tcp: [says("host-loopback", `127.0.0.1:${STAND_IN.loopbackPort}`), says("host-any-address", `0.0.0.0:${STAND_IN.hostAddress.split(":")[1]}`)],
        abstract: [{ name: abstract, says: "host-abstract" }],
      }),
    );
  } catch (error) {
    await remove();
    throw error;
  }
  const script = [
    "set -e",
    'mount --bind "$1" /etc/resolv.conf',
    'if [ "$2" = user ]; then mount -t tmpfs -o mode=755 naruto-test /dev/net; mknod -m 666 /dev/net/tun c 10 200; fi',
    "shift 2",
    'exec "$@"',
  ].join("\n");
  return {
    abstract,
    inHost: (argv, user) => [
      "nsenter",
      `--net=/proc/${hostPid}/ns/net`,
      "unshare",
      "--mount",
      "--propagation",
      "private",
      "sh",
      "-c",
      script,
      "sh",
      resolv,
      user ? "user" : "root",
      ...(user ? ["setpriv", `--reuid=${user.uid}`, `--regid=${user.gid}`, "--clear-groups", "--"] : []),
      ...argv,
    ],
    remove,
  };
}
