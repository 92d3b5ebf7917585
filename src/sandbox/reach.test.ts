/**
 * The endpoints an agent was given (reach.ts), with the real bwrap and slirp4netns: in its own
 * network an agent reaches the loopback or LAN server its endpoint variable names, and nothing
 * else of the host (another loopback port, the relay's sockets); an endpoint that cannot be
 * carried in is refused before the command starts. Skipped, saying why, where the agents' own
 * network does not work.
 */
import { readdir, readFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { bareWorkDir, bwrapSandbox, userNetHere } from "../../test/support/sandbox.ts";
import { planReach, unreachable } from "./reach.ts";
import type { SandboxRun } from "./sandbox.ts";

const net = await userNetHere();
const netSkip = net.ok ? null : `the agents' own network does not work here (${net.reason}); .ci/run installs slirp4netns`;
/** One of the host's own non-loopback IPv4 addresses: a stand-in for a gateway on the LAN (the sandbox blocks it). */
const lanAddress =
  Object.values(networkInterfaces())
    .flat()
    .find((a) => a !== undefined && a.family === "IPv4" && !a.internal)?.address ?? null;

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

/** A TCP server on `host` that answers `what` and closes. */
async function answering(what: string, host: string): Promise<number> {
  const server: Server = createServer((socket) => socket.on("error", () => undefined).end(`${what}\n`));
  await new Promise<void>((r) => server.listen(0, host, () => r()));
  cleanup.push(() => new Promise<void>((r) => server.close(() => r())));
  return (server.address() as { port: number }).port;
}

/** A node one-liner that prints what each `host:port` answers, or its error code, one line each in order. */
function knock(targets: readonly (readonly [string, number])[]): string {
  const one = `(h,p)=>new Promise(r=>require("net").connect(p,h).on("data",d=>r(String(d).trim())).on("error",e=>r(e.code)))`;
  return `node -e 'const k=${one};(async()=>{for(const [h,p] of ${JSON.stringify(targets)})console.log(await k(h,p))})()'`;
}

/** The relay folders in the host's /tmp now (other runs' too). */
async function relayFolders(): Promise<Set<string>> {
  return new Set((await readdir(tmpdir()).catch(() => [])).filter((f) => f.startsWith("naruto-reach-")));
}

/** Relays still running that no run before `before` started (this test's), and folders of its left behind. */
async function relaysLeft(before: Set<string>): Promise<string[]> {
  // It ends on its exit pipe's end, a moment after the run: given a few seconds.
  for (let tries = 0; tries < 100; tries++) {
    if ((await relays(before)).length === 0) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return relays(before);
}

async function relays(before: Set<string>): Promise<string[]> {
  const left = [...(await relayFolders())].filter((f) => !before.has(f));
  for (const pid of await readdir("/proc").catch(() => [])) {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
    const folder = /naruto-reach-\w+/.exec(cmdline)?.[0];
    if (/^\d+$/.test(pid) && folder !== undefined && !before.has(folder) && cmdline.includes("-e")) left.push(`${pid}: ${folder}`);
  }
  return left;
}

async function runIn(request: Omit<SandboxRun, "workDir" | "timeoutMs" | "network">) {
  const sandbox = await bwrapSandbox({ ownNetwork: true });
  const dir = await bareWorkDir();
  cleanup.push(() => dir.remove());
  return sandbox.run({ ...request, workDir: dir, network: true, timeoutMs: 30_000 });
}

describe.skipIf(netSkip !== null)(`the endpoints an agent was given, in its own network${netSkip ? ` (skipped: ${netSkip})` : ""}`, () => {
  it("reaches the loopback server its endpoint variable names, and no other port of the host's loopback", async () => {
    const model = await answering("model", "127.0.0.1");
    const other = await answering("other", "127.0.0.1");
    const url = `http://127.0.0.1:${model}`;
    const before = await relayFolders();
    const run = await runIn({
      command: `${knock([
        ["127.0.0.1", model],
        ["127.0.0.1", other],
      ])}; echo "$ANTHROPIC_BASE_URL"`,
      env: { PATH: process.env.PATH ?? "", ANTHROPIC_BASE_URL: url },
      reach: [url],
    });
    expect(run.startFailed).toBeNull();
    expect(run.output.trim().split("\n")).toEqual(["model", "ECONNREFUSED", url]);
    // The relay ended with the run, and its folder is gone.
    expect(await relaysLeft(before)).toEqual([]);
  });

  it("reaches `localhost` by name", async () => {
    const model = await answering("model", "127.0.0.1");
    const run = await runIn({ command: knock([["localhost", model]]), env: { PATH: process.env.PATH ?? "" }, reach: [`http://localhost:${model}/v1`] });
    expect(run.output.trim()).toBe("model");
  });

  it.skipIf(lanAddress === null)("reaches a LAN endpoint at its own address, and no other port of that host", async () => {
    const host = lanAddress ?? "";
    const model = await answering("gateway", host);
    const other = await answering("other", host);
    const run = await runIn({
      command: knock([
        [host, model],
        [host, other],
      ]),
      env: { PATH: process.env.PATH ?? "" },
      reach: [`https://${host}:${model}`],
    });
    expect(run.output.trim().split("\n")).toEqual(["gateway", expect.stringMatching(/^(ECONNREFUSED|ENETUNREACH|EHOSTUNREACH)$/)]);
  });

  it("keeps the relay's sockets out of the agent's sight", async () => {
    const model = await answering("model", "127.0.0.1");
    const run = await runIn({
      // The relay's folder is naruto's, on the host: the agent finds no such folder, wherever it looks.
      command: `ls -d /tmp/naruto-reach-* 2>&1; ls /proc/*/fd 2>/dev/null | grep -c . ; cat /proc/net/unix | grep -c naruto-reach`,
      env: { PATH: process.env.PATH ?? "" },
      reach: [`http://127.0.0.1:${model}`],
    });
    const lines = run.output.trim().split("\n");
    expect(lines[0]).toMatch(/No such file or directory/);
    expect(lines.at(-1)).toBe("0");
  });

  it("refuses, before the command starts, an endpoint it cannot carry in, saying how to give the host's network", async () => {
    const reach = ["http+unix://%2Frun%2Follama.sock/api"];
    const run = await runIn({ command: "echo started", env: { PATH: process.env.PATH ?? "" }, reach });
    expect(run.output).not.toContain("started");
    expect(run.startFailed).toMatch(/`network: host` in its profile, under `agents:` in .github\/naruto.yml/);
    // What `naruto run` asks before it makes anything is the same decision, in the same words.
    expect(await (await bwrapSandbox({ ownNetwork: true })).refusedReach(reach)).toBe(run.startFailed);
  });
});

describe("planReach", () => {
  const blocked = ["10.0.0.0/8", "192.168.0.0/16"];
  const resolve = async (host: string) => ({ "gateway.corp": ["10.1.2.3"], "api.example": ["203.0.113.9"] })[host] ?? [];

  it("carries in loopback and LAN hosts, by address or by name, and leaves the internet alone", async () => {
    const plan = await planReach(
      ["http://127.0.0.1:4000", "http://localhost:11434/v1", "https://gateway.corp/v1", "https://api.example", "http://[::1]:8080", "not a url"],
      blocked,
      resolve,
    );
    expect(plan).toEqual({
      ok: true,
      targets: [
        { listen: "127.0.0.1", port: 4000, connect: "127.0.0.1", alias: false },
        { listen: "127.0.0.1", port: 11434, connect: "localhost", alias: false },
        { listen: "::1", port: 11434, connect: "localhost", alias: false },
        { listen: "10.1.2.3", port: 443, connect: "10.1.2.3", alias: true },
        { listen: "::1", port: 8080, connect: "::1", alias: false },
      ],
    });
  });

  it("refuses a unix socket, with the way out", async () => {
    const plan = await planReach(["http+unix://%2Frun%2Follama.sock"], blocked, resolve);
    expect(plan).toMatchObject({ ok: false, reason: expect.stringContaining("`network: host` in its profile") });
  });

  it("knows what the command's network cannot reach", () => {
    expect(unreachable("127.0.0.53", [])).toBe(true);
    expect(unreachable("192.168.1.1", blocked)).toBe(true);
    expect(unreachable("203.0.113.9", blocked)).toBe(false);
    expect(unreachable("fd00::2", [])).toBe(true);
    expect(unreachable("2001:db8::1", [])).toBe(false);
  });
});
