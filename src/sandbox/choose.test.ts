/**
 * Which sandbox a run gets (choose.ts) and who its commands run as: as root, an unprivileged
 * user of their own (sandbox-user.ts), never root; without a working bubblewrap, `auto` runs
 * them unsandboxed for an ordinary user and refuses for root. A stand-in `bwrap` plays each machine.
 */
import { spawnSync } from "node:child_process";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { chooseSandbox, networkWarning, probeBwrap, SandboxUnavailableError } from "./choose.ts";
import { probeUserNet } from "./probe-net.ts";
import { SANDBOX_USER, SETPRIV } from "./sandbox-user.ts";

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

/** A stand-in bwrap: prints its version, logs the arguments of each run, and fails every run when `works` is false. */
async function fakeBwrap(works: boolean): Promise<{ binary: string; runs: () => Promise<string> }> {
  const dir = await mkdtemp(join(tmpdir(), "naruto-fake-bwrap-"));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const binary = join(dir, "bwrap");
  const log = join(dir, "runs");
  await writeFile(
    binary,
    `#!/bin/sh
[ "$1" = --version ] && { echo "bubblewrap 0.8.0"; exit 0; }
echo "$*" >> ${log}
[ ${works ? 1 : 0} = 1 ] && exit 0
echo "bwrap: setting up uid map: Permission denied" >&2
exit 1
`,
  );
  await chmod(binary, 0o755);
  return { binary, runs: () => readFile(log, "utf8").catch(() => "") };
}

describe("probeBwrap", () => {
  it("as root, runs commands as an unprivileged user of their own, made by setpriv inside, with no user namespace mapped to root", async () => {
    const bwrap = await fakeBwrap(true);
    // A fresh uid per test: the probe is asked once per process and user.
    expect(await probeBwrap({ binary: bwrap.binary, path: process.env.PATH, uid: 0 })).toEqual({ ok: true, version: "bubblewrap 0.8.0", user: SANDBOX_USER });
    const run = await bwrap.runs();
    expect(run).toContain(`-- ${SETPRIV} --reuid=${SANDBOX_USER.uid} --regid=${SANDBOX_USER.gid} --clear-groups --inh-caps=-all --bounding-set=-all -- true`);
    expect(run).toContain("--cap-drop ALL --cap-add CAP_SETUID --cap-add CAP_SETGID --cap-add CAP_SETPCAP");
    expect(run).not.toContain("--unshare-user");
  });

  it("as an ordinary user, runs them as that user and asks bwrap for nothing more", async () => {
    const bwrap = await fakeBwrap(true);
    expect(await probeBwrap({ binary: bwrap.binary, path: process.env.PATH, uid: 1001 })).toEqual({ ok: true, version: "bubblewrap 0.8.0", user: null });
    const run = await bwrap.runs();
    expect(run).not.toContain("setpriv");
    expect(run).not.toContain("--cap-add");
  });
});

describe("chooseSandbox without a working bubblewrap", () => {
  const env = { PATH: process.env.PATH };

  it("as root, auto refuses: agents never run as root without a sandbox; it says how to install bubblewrap or choose none", async () => {
    const { binary } = await fakeBwrap(false);
    const refused = chooseSandbox({ mode: "auto", binary, env, uid: 0, probe: () => probeBwrap({ binary, path: env.PATH, uid: 0 }) });
    await expect(refused).rejects.toThrow(SandboxUnavailableError);
    await expect(refused).rejects.toMatchObject({
      because: "root",
      message: expect.stringMatching(/as root.*setting up uid map: Permission denied.*apt-get install bubblewrap.*sandbox: none/),
    });
  });

  it("as root, an explicit none runs commands as root, and says so to the arbiter", async () => {
    const sandbox = await chooseSandbox({ mode: "none", env, uid: 0 });
    expect(sandbox).toMatchObject({ kind: "none", runsAsRoot: true });
  });

  it("as an ordinary user, auto runs unsandboxed and says why; required refuses", async () => {
    const { binary } = await fakeBwrap(false);
    const probe = () => probeBwrap({ binary, path: env.PATH, uid: 1001 });
    const sandbox = await chooseSandbox({ mode: "auto", binary, env, uid: 1001, probe });
    expect(sandbox).toMatchObject({ kind: "none", runsAsRoot: false, description: "none (bwrap does not work here: setting up uid map: Permission denied)" });
    await expect(chooseSandbox({ mode: "required", binary, env, uid: 1001, probe })).rejects.toMatchObject({ because: "required" });
  });
});

describe("the agents' own network", () => {
  const bwrapWorks = async () => ({ ok: true as const, version: "bubblewrap 0.8.0", user: null, limitation: null });
  const net = { slirp: "/usr/bin/slirp4netns", version: "slirp4netns 1.2.0", ip: "/usr/sbin/ip" };

  it("is theirs where slirp4netns works, and the sandbox says through what", async () => {
    const sandbox = await chooseSandbox({ mode: "auto", env: { PATH: process.env.PATH }, probe: bwrapWorks, probeNet: async () => ({ ok: true, net }) });
    expect(sandbox.network).toEqual({ kind: "isolated", via: "slirp4netns 1.2.0, the internet without the host", gap: null });
    // The result's `sandbox` is the sandbox alone (its shape is part of the result).
    expect(sandbox.description).toBe("bwrap 0.8.0");
    expect(networkWarning(sandbox)).toBeNull();
    // Without `ip` the routes that keep the host's addresses and the LAN out cannot be made: said once.
    const noIp = await chooseSandbox({
      mode: "auto",
      env: { PATH: process.env.PATH },
      probe: bwrapWorks,
      probeNet: async () => ({ ok: true, net: { ...net, ip: null } }),
    });
    expect(networkWarning(noIp)).toMatch(
      /^agents have a network of their own, but without `ip` \(iproute2\) the host's own addresses and the LAN stay in the agents' reach: install iproute2$/,
    );
  });

  it("where it does not, is the host's network, said once, like the sandbox itself; required refuses to run then", async () => {
    const reason = "slirp4netns not found; install slirp4netns (Debian and Ubuntu: apt-get install slirp4netns) for a network without the host";
    const probeNet = async () => ({ ok: false as const, reason });
    const sandbox = await chooseSandbox({ mode: "auto", env: { PATH: process.env.PATH }, probe: bwrapWorks, probeNet });
    expect(sandbox.network).toEqual({ kind: "host", reason });
    expect(sandbox.description).toBe("bwrap 0.8.0");
    expect(networkWarning(sandbox)).toBe(`agents reach the host's network, its loopback, abstract sockets and LAN included: ${reason}`);
    const refused = await chooseSandbox({ mode: "required", env: { PATH: process.env.PATH }, probe: bwrapWorks, probeNet }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SandboxUnavailableError);
    expect(refused).toMatchObject({ missing: "network", reason });
    expect((refused as Error).message).toMatch(/install slirp4netns \(Debian and Ubuntu: apt-get install slirp4netns/);
    // Without the sandbox there is nothing more to say about the network than that.
    expect(networkWarning(await chooseSandbox({ mode: "none", env: {} }))).toBeNull();
  });

  it("is tried for real: a slirp4netns that does not run gives the host's network", async () => {
    expect(
      await probeUserNet({ bwrap: "bwrap", version: "bubblewrap 0.8.0", system: [], user: null, path: process.env.PATH, slirp: "/nonexistent/slirp4netns" }),
    ).toEqual({
      ok: false,
      reason: "/nonexistent/slirp4netns does not run; install slirp4netns (Debian and Ubuntu: apt-get install slirp4netns) for a network without the host",
    });
  });

  const slirpHere = spawnSync("slirp4netns", ["--version"]).status === 0;
  it.skipIf(!slirpHere)(
    `says so when naruto's user cannot open /dev/net/tun, which slirp4netns needs${slirpHere ? "" : " (skipped: slirp4netns is not installed)"}`,
    async () => {
      const probe = await probeUserNet({
        bwrap: "bwrap",
        version: "bubblewrap 0.8.0",
        system: [],
        user: null,
        path: process.env.PATH,
        tun: "/nonexistent/tun",
      });
      expect(probe).toEqual({
        ok: false,
        reason: expect.stringMatching(/^\/nonexistent\/tun, which slirp4netns opens, is not open to naruto's user: make it 0666/),
      });
    },
  );
});

describe("chooseSandbox on a CI runner (issue 32)", () => {
  const off = async () => ({ ok: false as const, reason: "bwrap not found" });
  it("refuses sandbox: none, saying what to do", async () => {
    await expect(chooseSandbox({ mode: "none", env: {}, runner: true })).rejects.toThrow(
      /only in the sandbox, and the config says sandbox: none: remove `sandbox: none`/,
    );
    await expect(chooseSandbox({ mode: "none", env: {}, uid: 1001 })).resolves.toMatchObject({ kind: "none" });
  });

  it("fails instead of running without a sandbox where bubblewrap does not work, whatever the mode", async () => {
    for (const mode of ["auto", "required"] as const) {
      for (const uid of [1001, 0]) {
        await expect(chooseSandbox({ mode, env: {}, uid, runner: true, probe: off })).rejects.toMatchObject({
          name: "SandboxRequiredOnRunnerError",
          reason: "bwrap not found",
        });
      }
    }
    // Off a runner, an ordinary user's auto still falls back (as root it refuses: the root drop's rule).
    await expect(chooseSandbox({ mode: "auto", env: {}, uid: 1001, probe: off })).resolves.toMatchObject({ kind: "none" });
  });
});
