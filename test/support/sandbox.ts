/**
 * Sandboxes for tests: the explicit unsandboxed adapter always, and bubblewrap where it works on
 * this machine (CI installs it: .ci/run). A test that needs bubblewrap and does not find it is
 * reported skipped with the reason (`bwrapSkipReason`), never passed.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBwrapSandbox } from "../../src/sandbox/bwrap.ts";
import { readSystem } from "../../src/sandbox/system-paths.ts";
import { probeBwrap } from "../../src/sandbox/choose.ts";
import { probeUserNet, type NetProbe } from "../../src/sandbox/probe-net.ts";
import type { Sandbox } from "../../src/sandbox/sandbox.ts";
import { createUnsandboxed } from "../../src/sandbox/unsandboxed.ts";
import type { UserNet } from "../../src/sandbox/user-net.ts";
import { makeWorkDirFolders, workDirLayout, type WorkDir } from "../../src/sandbox/work-dir.ts";

const probe = await probeBwrap({ binary: "bwrap", path: process.env.PATH });

/** Why the bubblewrap tests cannot run here; null when they can. */
export const bwrapSkipReason: string | null = probe.ok ? null : `bubblewrap does not work on this machine (${probe.reason}); .ci/run installs it`;

let netProbe: Promise<NetProbe> | null = null;

/**
 * Whether the agents' own network (src/sandbox/user-net.ts) works here: tried once per test
 * file, on first use. CI installs slirp4netns (.ci/run).
 */
export function userNetHere(): Promise<NetProbe> {
  if (!probe.ok) return Promise.resolve({ ok: false, reason: bwrapSkipReason ?? "no bwrap" });
  const found = probe;
  netProbe ??= readSystem().then((system) => probeUserNet({ bwrap: "bwrap", version: found.version, system, user: found.user, path: process.env.PATH }));
  return netProbe;
}

/**
 * Bubblewrap as `sandbox: auto` makes it, but for the network: `network: true` is the host's
 * network here (each run in a network of its own costs a slirp4netns), unless `ownNetwork`.
 */
export async function bwrapSandbox(options: { readonly ownNetwork?: boolean } = {}): Promise<Sandbox> {
  if (!probe.ok) throw new Error(bwrapSkipReason ?? "no bwrap");
  const net = options.ownNetwork ? await userNetHere() : null;
  if (net !== null && !net.ok) throw new Error(`the agents' own network does not work here: ${net.reason}`);
  return createBwrapSandbox({
    version: probe.version,
    system: await readSystem(),
    ...(net?.ok ? { net: net.net } : { hostNetworkReason: "tests give agents the host's network unless they ask for their own" }),
  });
}

/**
 * Bubblewrap as it would be made on a machine whose agents' own network is `net` (null: none),
 * for what it decides before running anything (Sandbox.refusedReach); it is never run.
 */
export function bwrapDeciding(net: UserNet | null): Sandbox {
  return createBwrapSandbox({ version: "bubblewrap 0.8.0", system: [], net, hostNetworkReason: "a test" });
}

export function unsandboxed(): Sandbox {
  return createUnsandboxed({ reason: "a test" });
}

/** Every adapter this machine can run, by name: for suites every adapter must pass. */
export async function sandboxesHere(): Promise<[string, Sandbox][]> {
  const list: [string, Sandbox][] = [["none", unsandboxed()]];
  if (probe.ok) list.push(["bwrap", await bwrapSandbox()]);
  return list;
}

/** The sandbox of ordinary tests: bubblewrap when it works, else none (as `sandbox: auto` picks). */
export async function defaultTestSandbox(): Promise<Sandbox> {
  return probe.ok ? bwrapSandbox() : unsandboxed();
}

/** A work directory without a repository behind it (for tests of processes, not of git). */
export async function bareWorkDir(): Promise<WorkDir & { remove(): Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), "naruto-sandbox-"));
  const dir = workDirLayout(root, { start: "0".repeat(40), objects: { commonDir: root, objects: [], format: "sha1" }, startObjects: [], label: "test.1" });
  await makeWorkDirFolders(dir);
  return { ...dir, remove: () => rm(root, { recursive: true, force: true }) };
}

/** A work directory whose files are `path` (an existing folder: a test repository's checkout, say). */
export async function workDirAt(path: string): Promise<WorkDir & { remove(): Promise<void> }> {
  const dir = await bareWorkDir();
  await rm(dir.path, { recursive: true, force: true });
  return { ...dir, path };
}
