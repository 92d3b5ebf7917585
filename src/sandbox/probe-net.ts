/**
 * Whether the command's own network (user-net.ts) works here, found once per process the way the
 * bubblewrap probe is (choose.ts): slirp4netns on PATH, and one real run in it — the same launch
 * as an agent's — since what fails is only known by trying (no `/dev/net/tun` for naruto's user,
 * a user namespace AppArmor refuses, a kernel without what slirp4netns needs).
 */
import { spawn } from "node:child_process";
import { constants } from "node:fs";
import { access, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBwrapSandbox } from "./bwrap.ts";
import type { SystemEntry } from "./system-paths.ts";
import type { SandboxUser } from "./sandbox-user.ts";
import { findProgram } from "./find-program.ts";
import type { UserNet } from "./user-net.ts";
import { makeWorkDirFolders, workDirLayout } from "./work-dir.ts";

export type NetProbe = { readonly ok: true; readonly net: UserNet } | { readonly ok: false; readonly reason: string };

export interface NetProbeOptions {
  /** bwrap, and what its probe found (choose.ts). */
  readonly bwrap: string;
  readonly version: string;
  readonly system: readonly SystemEntry[];
  readonly user: SandboxUser;
  /** The slirp4netns executable (default `slirp4netns`, found on PATH or in the system's folders). */
  readonly slirp?: string;
  /** The runner's PATH. */
  readonly path: string | undefined;
  /** Where the trial run's folder is made (default the temp folder). */
  readonly tmp?: string;
  /** The TUN device slirp4netns opens (default /dev/net/tun). */
  readonly tun?: string;
}

const TUN = "/dev/net/tun";
const INSTALL = "install slirp4netns (Debian and Ubuntu: apt-get install slirp4netns) for a network without the host";

const probes = new Map<string, Promise<NetProbe>>();

export function probeUserNet(options: NetProbeOptions): Promise<NetProbe> {
  const key = JSON.stringify([options.bwrap, options.slirp ?? "", options.user, options.path ?? ""]);
  let found = probes.get(key);
  if (found === undefined) {
    found = tryUserNet(options);
    probes.set(key, found);
  }
  return found;
}

async function tryUserNet(options: NetProbeOptions): Promise<NetProbe> {
  const slirp = await findProgram(options.slirp ?? "slirp4netns", options.path);
  if (slirp === null) return { ok: false, reason: `slirp4netns not found; ${INSTALL}` };
  const said = await versionOf(slirp);
  if (said === null) return { ok: false, reason: `${slirp} does not run; ${INSTALL}` };
  // What slirp4netns opens as naruto's user; the trial run would only say "child failed".
  if (
    !(await access(options.tun ?? TUN, constants.R_OK | constants.W_OK).then(
      () => true,
      () => false,
    ))
  ) {
    return {
      ok: false,
      reason: `${options.tun ?? TUN}, which slirp4netns opens, is not open to naruto's user: make it 0666 as Debian and Ubuntu do (in a container, give it the device: docker run --device /dev/net/tun)`,
    };
  }
  const net: UserNet = { slirp, version: said, ip: await findProgram("ip", options.path) };
  const root = await mkdtemp(join(options.tmp ?? tmpdir(), "naruto-net-probe-"));
  try {
    const workDir = workDirLayout(root, {
      start: "0".repeat(40),
      objects: { commonDir: root, objects: [], format: "sha1" },
      startObjects: [],
      label: "net-probe",
    });
    await makeWorkDirFolders(workDir);
    const sandbox = createBwrapSandbox({ binary: options.bwrap, version: options.version, system: options.system, user: options.user, net });
    // The command sees slirp4netns's interface, or the network is not its own.
    const run = await sandbox.run({
      command: "grep -q tap0 /proc/net/dev && echo naruto-net-ok",
      workDir,
      env: { PATH: options.path ?? "/usr/bin:/bin" },
      network: true,
      timeoutMs: 20_000,
      killGraceMs: 1000,
    });
    if (run.startFailed !== null) return { ok: false, reason: run.startFailed };
    if (run.exitCode !== 0 || !run.output.includes("naruto-net-ok"))
      return { ok: false, reason: `bwrap could not make a network namespace for it${lastLine(run.output)}` };
    return { ok: true, net };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

function lastLine(output: string): string {
  const line = output.trim().split("\n").at(-1) ?? "";
  return line === "" ? "" : `: ${line.replace(/^bwrap: /, "")}`;
}

/** `slirp4netns version 1.2.0` → `slirp4netns 1.2.0`; null when it does not run. */
function versionOf(slirp: string): Promise<string | null> {
  return new Promise((resolve) => {
    const child = spawn(slirp, ["--version"], { stdio: ["ignore", "pipe", "ignore"], env: {} });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
    child.on("error", () => resolve(null));
    child.on("close", (code) => {
      const version = /version\s+(\S+)/.exec(out)?.[1];
      resolve(code === 0 ? `slirp4netns${version ? ` ${version}` : ""}` : null);
    });
  });
}
