/**
 * The endpoints an agent was given, carried into its own network (docs/architecture.md,
 * "Network"). In a network of its own (user-net.ts) the command reaches the internet but nothing
 * of the host: not its loopback, not its LAN. A model endpoint there — a LiteLLM proxy or ollama
 * on localhost, a company gateway on the LAN, a proxy on localhost:3128 — would be out of reach.
 * For each URL the command was given (SandboxRun.reach) whose host it cannot reach, exactly that
 * host:port is carried in, and nothing else:
 *
 * - inside, a relay listens on the same address and port in the command's network namespace, so
 *   the URL works unchanged (TLS names too): a loopback address as it is (the namespace has its
 *   own 127.0.0.0/8 and ::1); a LAN address as an alias on the namespace's loopback (a local
 *   address wins over the "unreachable" route). The relay is started by the outer layer, before
 *   the command (user-net.ts), and ends when naruto closes its exit pipe;
 * - it carries each connection over a unix socket in a folder naruto makes for the run (0700,
 *   under the host's temporary folder, which the sandbox replaces by a private tmpfs): a path the
 *   command can neither see nor write;
 * - naruto, on its side, connects each one to the real host:port.
 *
 * What cannot be carried (a unix-socket URL, a LAN endpoint without `ip`, a relay that could not
 * be set up) is refused with the way out (`network: host`, which gives the host's whole network):
 * by `naruto run` before it makes anything (decideReach, through Sandbox.refusedReach), and again
 * before each command starts (reachFor), the backstop for a run that did not ask first.
 */
import { lookup } from "node:dns/promises";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, connect, isIP, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** One host:port carried in: where the relay listens inside, and where naruto connects outside. */
export interface ReachTarget {
  /** The address the command connects to (and the relay listens on, inside). */
  readonly listen: string;
  readonly port: number;
  /** Where naruto connects: the same address, or `localhost` as the host resolves it. */
  readonly connect: string;
  /** Whether `listen` must be added to the namespace's loopback (a LAN address). */
  readonly alias: boolean;
}

/** What the outer layer runs (user-net.ts): each listener with its unix socket. */
export interface RelaySpec {
  readonly node: string;
  readonly listeners: readonly { readonly listen: string; readonly port: number; readonly socket: string; readonly alias: boolean }[];
}

export type ReachPlan = { readonly ok: true; readonly targets: readonly ReachTarget[] } | { readonly ok: false; readonly reason: string };

/** The way out, said with every refusal (`network:` is an agent profile's key: src/config/schema.ts). */
export const HOST_NETWORK_FIX =
  "or give the agent the host's network (`network: host` in its profile, under `agents:` in .github/naruto.yml), which lets it reach everything on this machine and its LAN";

const DEFAULT_PORT: Readonly<Record<string, number>> = { "http:": 80, "https:": 443, "ws:": 80, "wss:": 443, "socks5:": 1080, "socks5h:": 1080 };

/** Whether `address` (IPv4 or IPv6) is one the command's own network cannot reach, given the blocked IPv4 ranges. */
export function unreachable(address: string, blocked: readonly string[]): boolean {
  if (isIP(address) === 6) {
    const a = address.toLowerCase();
    // slirp4netns gives no IPv6 beyond its link: loopback, unique-local and link-local are the host's or its LAN's.
    return a === "::1" || /^f[cd]/.test(a) || /^fe[89ab]/.test(a);
  }
  if (isIP(address) !== 4) return false;
  return ["127.0.0.0/8", ...blocked].some((cidr) => inRange(address, cidr));
}

function inRange(address: string, cidr: string): boolean {
  const [base = "", bits = "32"] = cidr.split("/");
  const value = (a: string) => a.split(".").reduce((n, part) => n * 256 + Number(part), 0);
  const prefix = Number(bits);
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return (value(address) & mask) >>> 0 === (value(base) & mask) >>> 0;
}

/**
 * Which of `urls` must be carried in, and how (or why one cannot be). A URL naruto cannot read is
 * left alone (the agent's own call fails with its own message); a public host needs nothing.
 */
export async function planReach(
  urls: readonly string[],
  blocked: readonly string[],
  resolve: (host: string) => Promise<string[]> = async (host) => (await lookup(host, { all: true })).map((a) => a.address),
): Promise<ReachPlan> {
  const targets = new Map<string, ReachTarget>();
  for (const raw of urls) {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      continue;
    }
    if (url.protocol.includes("unix") || url.hostname === "") {
      return {
        ok: false,
        reason: `${raw} is a unix socket of this machine, which no relay carries into the agents' own network: use a TCP address, ${HOST_NETWORK_FIX}`,
      };
    }
    const port = url.port === "" ? DEFAULT_PORT[url.protocol] : Number(url.port);
    if (port === undefined) continue;
    const host = url.hostname.replace(/^\[|\]$/g, "");
    const add = (target: ReachTarget) => targets.set(`${target.listen} ${target.port}`, target);
    if (host === "localhost" || host.endsWith(".localhost")) {
      add({ listen: "127.0.0.1", port, connect: "localhost", alias: false });
      add({ listen: "::1", port, connect: "localhost", alias: false });
      continue;
    }
    const addresses = isIP(host) === 0 ? await resolve(host).catch(() => []) : [host];
    for (const address of addresses.filter((a) => unreachable(a, blocked))) {
      const loopback = address === "::1" || address.startsWith("127.");
      add({ listen: address, port, connect: address, alias: !loopback });
    }
  }
  return { ok: true, targets: [...targets.values()] };
}

/** naruto's side of the relay: a unix socket per target, each connection carried to the real host:port. */
export interface ReachHost {
  readonly spec: RelaySpec;
  stop(): Promise<void>;
}

/** Opens naruto's side for `targets`, in a fresh folder of its own (see the file's comment). */
export async function openReach(targets: readonly ReachTarget[], node: string = process.execPath): Promise<ReachHost> {
  const dir = await mkdtemp(join(tmpdir(), "naruto-reach-"));
  const servers: Server[] = [];
  const open = new Set<Socket>();
  const listeners: RelaySpec["listeners"][number][] = [];
  try {
    for (const [i, target] of targets.entries()) {
      const socket = join(dir, `${i}.sock`);
      const server = createServer((inside) => {
        const outside = connect({ host: target.connect, port: target.port });
        for (const s of [inside, outside]) {
          open.add(s);
          s.once("close", () => open.delete(s));
        }
        inside.pipe(outside).pipe(inside);
        inside.on("error", () => outside.destroy());
        outside.on("error", () => inside.destroy());
      });
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(socket, () => resolve());
      });
      listeners.push({ listen: target.listen, port: target.port, socket, alias: target.alias });
    }
  } catch (error) {
    await close(servers, open, dir);
    throw error;
  }
  return { spec: { node, listeners }, stop: () => close(servers, open, dir) };
}

async function close(servers: readonly Server[], open: Set<Socket>, dir: string): Promise<void> {
  for (const server of servers) server.close();
  // Connections still open are the command's, and the command is gone.
  for (const socket of open) socket.destroy();
  await rm(dir, { recursive: true, force: true });
}

/**
 * The relay inside (run with `node -e`, its environment cleared): listens on each
 * `[address, port, socket]` of its argument (a JSON array), carries each connection to the socket, says `ok`
 * on its descriptor 9 and closes it once all listen (a `::1` the namespace lacks is skipped
 * when its `127.0.0.1` twin listens), and ends when its standard input (naruto's exit pipe) closes.
 */
export const RELAY_SCRIPT = [
  'const net = require("net"), fs = require("fs");',
  "const specs = JSON.parse(process.argv[1]);",
  "let left = specs.length;",
  'const ready = () => { if (--left === 0) { fs.writeSync(9, "ok\\n"); fs.closeSync(9); } };',
  "for (const [host, port, socket] of specs) {",
  '  const server = net.createServer((c) => { const u = net.connect(socket); c.pipe(u).pipe(c); c.on("error", () => u.destroy()); u.on("error", () => c.destroy()); });',
  '  server.on("error", (e) => { if (host === "::1" && e.code === "EADDRNOTAVAIL") return ready(); process.stderr.write("naruto relay: " + host + ":" + port + ": " + e.message + "\\n"); process.exit(1); });',
  '  server.listen({ host, port, ipv6Only: host.includes(":") }, ready);',
  "}",
  'process.stdin.on("data", () => undefined).on("end", () => process.exit(0)).on("error", () => process.exit(0));',
].join("\n");

/** What the command's own network is here: whether it has `ip` (iproute2), and the ranges it blocks. */
export interface ReachNet {
  readonly ip: boolean;
  readonly blocked: readonly string[];
}

/**
 * The one decision on what can be carried in (or why not), taken both before a run starts
 * anything (Sandbox.refusedReach: `naruto run`'s pre-run check) and at each run (reachFor, the
 * backstop), so that both say the same words. `ip`: whether the command's network has `ip`,
 * which blocks the LAN (`blocked`) and adds a LAN endpoint's address.
 */
export async function decideReach(urls: readonly string[], net: ReachNet): Promise<ReachPlan> {
  const plan = await planReach(urls, net.ip ? net.blocked : []);
  if (!plan.ok) return plan;
  const alias = plan.targets.find((t) => t.alias);
  if (alias !== undefined && !net.ip)
    return { ok: false, reason: `${alias.listen} cannot be carried into the agents' own network without \`ip\` (iproute2): install it, ${HOST_NETWORK_FIX}` };
  return plan;
}

/**
 * naruto's side for one run whose command has a network of its own: null when no endpoint needs
 * carrying in; the refusal (with the way out) when one cannot be (decideReach).
 */
export async function reachFor(
  urls: readonly string[],
  net: ReachNet,
): Promise<{ readonly ok: true; readonly host: ReachHost | null } | { readonly ok: false; readonly reason: string }> {
  const plan = await decideReach(urls, net);
  if (!plan.ok) return plan;
  if (plan.targets.length === 0) return { ok: true, host: null };
  try {
    return { ok: true, host: await openReach(plan.targets) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, reason: `the relay for ${urls.join(", ")} could not be opened (${message}): ${HOST_NETWORK_FIX.replace(/^or /, "")}` };
  }
}
