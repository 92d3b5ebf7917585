/**
 * The command's own network (docs/architecture.md). `network: true` gives it a network namespace of its
 * own whose only way out is slirp4netns: a user-mode TCP/IP stack that runs as naruto's user, in
 * naruto's network namespace, and makes the command's connections as sockets of its own. The
 * command reaches what naruto's user reaches on the internet, and not:
 *
 * - the host's loopback (`--disable-host-loopback`: the gateway 10.0.2.2 leads nowhere);
 * - abstract unix sockets (they belong to a network namespace, and the command's has none);
 * - the host's own addresses, the networks the host is on (its LAN) and the private, shared,
 *   link-local (a cloud's metadata service at 169.254.169.254) and reserved ranges: routes of the
 *   command's namespace answer them "unreachable", and it has no capability to change them.
 *
 * Names resolve through slirp4netns's DNS forwarder (10.0.2.3), which asks the host's resolver.
 *
 * How (bwrap.ts builds the command line): bubblewrap makes the namespaces in two layers. The outer
 * `bwrap` makes a user namespace (its user 0 is naruto's user) and the network namespace, adds the
 * routes with `ip`, says its pid, and runs the sandbox's own `bwrap` in them. slirp4netns joins
 * the outer layer's namespaces through that pid, and the command starts (`--block-fd`) only once
 * the network is up. When naruto is root the outer layer makes only the network namespace (root
 * needs no user namespace for it, and the sandbox user must stay an ordinary host user:
 * sandbox-user.ts); slirp4netns, root too, joins it the same way.
 * The outer layer is bwrap, not `unshare`, because on Ubuntu 24.04 AppArmor lets only programs
 * with a profile make user namespaces, and bwrap is the one naruto asks users to profile. A
 * simpler single `bwrap --unshare-net` does not work: bwrap puts the command in a second user
 * namespace of its own (for /dev/pts), which does not own the network namespace, so slirp4netns
 * cannot find a way in through the command's pid.
 *
 * slirp4netns runs sandboxed itself (`--enable-sandbox --enable-seccomp`: it parses the
 * command's packets), and ends when naruto closes its exit pipe: after the run, or when naruto
 * dies.
 */
import { spawn, type ChildProcess } from "node:child_process";
import type { Readable } from "node:stream";
import { networkInterfaces, type NetworkInterfaceInfo } from "node:os";
import { RELAY_SCRIPT, type RelaySpec } from "./reach.ts";

/** slirp4netns as found here, and `ip` for the routes (null: the host's addresses and the LAN stay in reach). */
export interface UserNet {
  readonly slirp: string;
  /** `slirp4netns 1.2.0` */
  readonly version: string;
  readonly ip: string | null;
}

/** The resolver the command's network has: slirp4netns's DNS forwarder. */
export const RESOLV_CONF = "nameserver 10.0.2.3\n";

/** Never the internet: private, shared, link-local, reserved and multicast IPv4 ranges. */
export const NOT_THE_INTERNET = [
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "224.0.0.0/4",
  "240.0.0.0/4",
] as const;

/**
 * Where the command's namespace must not lead: {@link NOT_THE_INTERNET}, and the host's own IPv4
 * addresses and the networks they are on (whatever their range). slirp4netns's own network,
 * 10.0.2.0/24, is the command's link and is more specific than any of these.
 */
export function blockedDestinations(interfaces: NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces()): string[] {
  const blocked = new Set<string>(NOT_THE_INTERNET);
  for (const address of Object.values(interfaces).flat()) {
    if (address === undefined || address.family !== "IPv4" || address.internal) continue;
    blocked.add(`${address.address}/32`);
    if (address.cidr !== null) blocked.add(networkOf(address.cidr));
  }
  return [...blocked];
}

/** `192.168.77.1/24` → `192.168.77.0/24`. */
export function networkOf(cidr: string): string {
  const [address = "", bits = "32"] = cidr.split("/");
  const prefix = Number(bits);
  const value = address.split(".").reduce((n, part) => n * 256 + Number(part), 0);
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  const network = (value & mask) >>> 0;
  return `${[24, 16, 8, 0].map((shift) => (network >>> shift) & 255).join(".")}/${prefix}`;
}

/**
 * The outer layer (see the file's comment): a command line that runs `inner` (the sandbox's own
 * bwrap) in a new user and network namespace, after answering `blocked` with "unreachable". Once
 * bwrap has set the namespaces up (its loopback included: slirp4netns configuring the link
 * earlier made bwrap's own setup fail) and the routes are in, it says its pid on `pidFd`, then
 * closes it so that nothing inside inherits it.
 */
export function outerLayer(options: {
  readonly bwrap: string;
  readonly ip: string | null;
  readonly blocked: readonly string[];
  readonly pidFd: number;
  readonly inner: readonly string[];
  readonly root?: boolean;
  /** The endpoints carried in (reach.ts), and the pipe whose end ends their relay. */
  readonly relay?: { readonly spec: RelaySpec; readonly exitFd: number } | null;
}): string[] {
  const relay = options.relay ?? null;
  const aliases = relay === null ? [] : relay.spec.listeners.filter((l) => l.alias).map((l) => `${l.listen}/${l.listen.includes(":") ? 128 : 32}`);
  const exitFd = relay?.exitFd ?? null;
  const script = [
    'ip="$1"; node="$2"; code="$3"; relay="$4"; shift 4; routes=""',
    'while [ "$1" != -- ]; do routes="${routes}route add unreachable $1\\n"; shift; done; shift',
    // A LAN endpoint's address, on the loopback: a local address wins over its "unreachable" route.
    'while [ "$1" != -- ]; do routes="${routes}address add $1 dev lo\\n"; shift; done; shift',
    'if [ -n "$routes" ]; then printf "$routes" | "$ip" -batch - || exit 125; fi',
    // The relay says `ok` and closes its descriptor 9 once it listens; it ends when naruto closes its exit pipe.
    ...(exitFd === null
      ? []
      : [
          `if [ -n "$relay" ]; then ready=$(env -i "$node" -e "$code" "$relay" 9>&1 >/dev/null 0<&${exitFd} ${exitFd}<&- ${options.pidFd}>&- &); [ "$ready" = ok ] || exit 125; fi`,
          `exec ${exitFd}<&-`,
        ]),
    `echo $$ >&${options.pidFd}; exec ${options.pidFd}>&-`,
    'exec "$@"',
  ].join("\n");
  return [
    // As root a network namespace needs no user namespace: the inner bwrap stays root's, and drops to the sandbox user itself.
    ...(options.root ? ["--unshare-net"] : ["--unshare-user", "--unshare-net", "--uid", "0", "--gid", "0"]),
    "--cap-add",
    "ALL",
    "--die-with-parent",
    "--bind",
    "/",
    "/",
    "--dev-bind",
    "/dev",
    "/dev",
    "--",
    "sh",
    "-c",
    script,
    "naruto-network",
    options.ip ?? "",
    relay?.spec.node ?? "",
    relay === null ? "" : RELAY_SCRIPT,
    relay === null ? "" : JSON.stringify(relay.spec.listeners.map((l) => [l.listen, l.port, l.socket])),
    ...(options.ip === null ? [] : options.blocked),
    "--",
    ...(options.ip === null ? [] : aliases),
    "--",
    options.bwrap,
    ...options.inner,
  ];
}

/** The slirp4netns command line for the namespaces of `pid`. */
export function slirpArgs(pid: number): string[] {
  return ["--configure", "--mtu=65520", "--disable-host-loopback", "--enable-sandbox", "--enable-seccomp", "--ready-fd=3", "--exit-fd=4", String(pid), "tap0"];
}

/** bwrap's `--info-fd` answer: its child's pid, as naruto sees it. */
export const BWRAP_INFO = /"child-pid":\s*(\d+)[\s\S]*\}/;
/** The outer layer's answer: its pid, on a line. */
export const PID_LINE = /^(\d+)\n/;

/** The pid `channel` says (`said` finds it); null when `child` ended first. */
export function readPid(channel: Readable, child: ChildProcess, said: RegExp): Promise<number | null> {
  return new Promise((resolve) => {
    let text = "";
    const done = (pid: number | null) => {
      channel.off("data", onData);
      child.off("exit", onExit);
      resolve(pid);
    };
    const onData = (chunk: Buffer) => {
      text += chunk.toString("utf8");
      const found = said.exec(text);
      if (found?.[1] !== undefined) done(Number(found[1]));
    };
    const onExit = () => done(null);
    channel.on("data", onData);
    child.once("exit", onExit);
  });
}

export interface SlirpRun {
  /** Ends slirp4netns (closes its exit pipe, then kills it if it lingers) and waits for it. */
  stop(): Promise<void>;
}

/** Starts slirp4netns on the namespaces of `pid` and waits until their network is up. */
export function startSlirp(net: UserNet, pid: number, timeoutMs = 10_000): Promise<{ ok: true; run: SlirpRun } | { ok: false; reason: string }> {
  const slirp = spawn(net.slirp, slirpArgs(pid), { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"], detached: true });
  let said = "";
  slirp.stderr?.on("data", (c: Buffer) => (said = (said + c.toString("utf8")).slice(-2000)));
  const [ready, exitPipe] = [slirp.stdio[3] as Readable, slirp.stdio[4] as Readable & { destroy(): void }];
  const exited = new Promise<void>((resolve) => {
    if (slirp.exitCode !== null || slirp.signalCode !== null) resolve();
    else slirp.once("exit", () => resolve());
  });
  const stop = async () => {
    exitPipe.destroy();
    const lingering = setTimeout(() => slirp.kill("SIGKILL"), 2000);
    await exited;
    clearTimeout(lingering);
  };
  const lastWords = () =>
    said
      .trim()
      .split("\n")
      .filter((l) => !/^WARNING: Support for seccomp is experimental/.test(l))
      .at(-1) ?? "";
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      void stop().then(() => resolve({ ok: false, reason: `slirp4netns was not ready within ${timeoutMs / 1000} s${lastWords() ? `: ${lastWords()}` : ""}` }));
    }, timeoutMs);
    ready.once("data", () => {
      clearTimeout(timer);
      ready.destroy();
      resolve({ ok: true, run: { stop } });
    });
    slirp.once("error", (error) => {
      clearTimeout(timer);
      resolve({ ok: false, reason: `slirp4netns could not start: ${error.message}` });
    });
    slirp.once("exit", (code) => {
      clearTimeout(timer);
      // After `ready` this settles nothing.
      resolve({ ok: false, reason: `slirp4netns ended (exit ${code ?? "by a signal"})${lastWords() ? `: ${lastWords()}` : ""}` });
    });
  });
}
