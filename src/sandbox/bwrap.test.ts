/**
 * What bubblewrap keeps out (bwrap.ts), with the real bwrap: the user's files, other processes,
 * the network when asked, capabilities; and that nothing outlives naruto. Skipped, saying why,
 * where bwrap does not work.
 */
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { bareWorkDir, bwrapSandbox, bwrapSkipReason, userNetHere } from "../../test/support/sandbox.ts";
import { bwrapArgs } from "./bwrap.ts";
import { readSystem } from "./system-paths.ts";
import { SANDBOX_USER, sandboxUserFor, SETPRIV } from "./sandbox-user.ts";
import { processesWithEnv } from "./leftovers.ts";
import { DEFAULT_LIMITS, describeLimitHit } from "./limits.ts";
import type { SandboxRun } from "./sandbox.ts";
import { SANDBOX_UIDS } from "./user-pool.ts";

/** Whether `uid` is one of the users sandboxes run as when naruto is root. */
const isSandboxUid = (uid: number) => uid >= SANDBOX_UIDS.first && uid < SANDBOX_UIDS.first + SANDBOX_UIDS.count;

const net = await userNetHere();
const netSkip = net.ok ? null : `the agents' own network does not work here (${net.reason}); .ci/run installs slirp4netns`;

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

async function contained(command: string | ((dir: Awaited<ReturnType<typeof bareWorkDir>>) => string), options: Partial<SandboxRun> = {}) {
  const dir = await bareWorkDir();
  cleanup.push(() => dir.remove());
  const sandbox = await bwrapSandbox();
  const run = await sandbox.run({
    command: typeof command === "string" ? command : command(dir),
    workDir: dir,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", SECRET_OF_NARUTO: "not here" },
    network: true,
    timeoutMs: 30_000,
    ...options,
  });
  return { run, dir };
}

describe("bwrapArgs", () => {
  it("binds the system read-only first and the command's folders read-write last, and cuts the network only when asked", async () => {
    const dir = await bareWorkDir();
    cleanup.push(() => dir.remove());
    const result = join(dir.io, "run-1", "result.json");
    const workDir = { ...dir, objects: { ...dir.objects, objects: ["/repo/.git/objects"] }, startObjects: ["/work/m-1/.objects/root-abc"] };
    const request: SandboxRun = { command: "true", workDir, env: {}, network: true, readOnly: ["/opt/agent"], outputs: [result], timeoutMs: 1 };
    const args = bwrapArgs(request, {
      system: [
        { path: "/usr", kind: "dir" },
        { path: "/bin", kind: "symlink", target: "usr/bin" },
      ],
      user: null,
    });
    const at = (flag: string, a: string) => args.findIndex((x, i) => x === flag && args[i + 1] === a);
    expect(args).toContain("--unshare-pid");
    expect(args).toContain("--die-with-parent");
    expect(args).not.toContain("--unshare-net");
    expect(args.slice(args.indexOf("--cap-drop"), args.indexOf("--cap-drop") + 2)).toEqual(["--cap-drop", "ALL"]);
    expect(at("--ro-bind", "/usr")).toBeGreaterThan(-1);
    expect(at("--symlink", "usr/bin")).toBeGreaterThan(-1);
    // The start commit's objects, never the user's whole store.
    expect(at("--ro-bind", "/work/m-1/.objects/root-abc")).toBeGreaterThan(-1);
    expect(args).not.toContain("/repo/.git/objects");
    expect(at("--ro-bind-try", "/opt/agent")).toBeGreaterThan(-1);
    for (const rw of [dir.path, dir.home]) expect(at("--bind", rw)).toBeGreaterThan(at("--ro-bind-try", "/opt/agent"));
    // naruto's own folder read-only, over anything before it; the files it made for the command writable on top.
    expect(at("--ro-bind", dir.io)).toBeGreaterThan(at("--bind", dir.home));
    expect(at("--bind", dir.io)).toBe(-1);
    expect(at("--bind", result)).toBeGreaterThan(at("--ro-bind", dir.io));
    expect(args.slice(-4)).toEqual(["--", "sh", "-c", "true"]);
    expect(bwrapArgs({ ...request, network: false }, { system: [], user: null })).toContain("--unshare-net");
    expect(args).not.toContain("--unshare-user");
  });

  it("runs the command as an unprivileged user of its own when naruto is root, and as naruto's own user otherwise", async () => {
    const dir = await bareWorkDir();
    cleanup.push(() => dir.remove());
    const request: SandboxRun = { command: "true", workDir: dir, env: {}, network: true, readOnly: ["/opt/agent/bin"], timeoutMs: 1 };
    const args = bwrapArgs(request, { system: [{ path: "/opt", kind: "dir" }], user: { uid: 64999, gid: 64999 } });
    // No user namespace mapped to root: root makes the mounts, then setpriv becomes the user.
    expect(args).not.toContain("--unshare-user");
    expect(args.slice(args.indexOf("--"))).toEqual([
      "--",
      SETPRIV,
      "--reuid=64999",
      "--regid=64999",
      "--clear-groups",
      "--inh-caps=-all",
      "--bounding-set=-all",
      "--",
      "sh",
      "-c",
      "true",
    ]);
    expect(args.slice(args.indexOf("--cap-drop"), args.indexOf("--cap-drop") + 8)).toEqual([
      "--cap-drop",
      "ALL",
      "--cap-add",
      "CAP_SETUID",
      "--cap-add",
      "CAP_SETGID",
      "--cap-add",
      "CAP_SETPCAP",
    ]);
    // The folders above its own are made crossable (bwrap makes them root's alone); the system's are left alone.
    const dirs = args.flatMap((a, i) => (a === "--dir" ? [args[i + 1]] : []));
    expect(dirs).toContain(dir.root);
    expect(dirs.some((d) => d?.startsWith("/opt"))).toBe(false);
    // After the mounts that would hide them (a tmpfs on /tmp), before the binds below them.
    expect(args.indexOf("--dir")).toBeGreaterThan(args.indexOf("--tmpfs"));
    expect(args.indexOf("--dir")).toBeLessThan(args.indexOf("--ro-bind-try"));
    expect(args.join(" ")).toContain("--perms 01777 --tmpfs /tmp");
    expect(bwrapArgs(request, { system: [], user: null })).not.toContain(SETPRIV);
    expect(sandboxUserFor(0)).toEqual(SANDBOX_USER);
    expect(SANDBOX_USER.uid).toBeGreaterThan(0);
    expect(SANDBOX_USER.gid).toBeGreaterThan(0);
    expect(sandboxUserFor(1001)).toBeNull();
    expect(sandboxUserFor(undefined)).toBeNull();
  });
});

describe.skipIf(bwrapSkipReason !== null)(`the bubblewrap sandbox${bwrapSkipReason ? ` (skipped: ${bwrapSkipReason})` : ""}`, () => {
  it("shows nothing of the machine but the system and the command's own folders", async () => {
    const outside = await mkdtemp(join(tmpdir(), "naruto-outside-"));
    cleanup.push(() => rm(outside, { recursive: true, force: true }));
    await writeFile(join(outside, "user-file"), "the user's\n");
    const { run, dir } = await contained(
      (d) =>
        `ls ${outside} 2>&1; ls ${process.cwd()} 2>&1; ls /root 2>&1; ls $HOME; echo home=$HOME; test -w /usr && echo usr-writable; touch /etc/x 2>/dev/null || echo etc-read-only; echo ok > ${join(d.path, "w")}; echo done`,
    );
    expect(run.exitCode).toBe(0);
    expect(run.output).toContain(`ls: cannot access '${outside}': No such file or directory`);
    expect(run.output).toContain(`ls: cannot access '${process.cwd()}': No such file or directory`);
    expect(run.output).not.toContain("user-file");
    expect(run.output).not.toContain("usr-writable");
    expect(run.output).toContain("etc-read-only");
    expect(run.output).toContain(`home=${dir.home}`);
    expect(await readFile(join(dir.path, "w"), "utf8")).toBe("ok\n");
  });

  it("shows only its own processes: no /proc/<pid>/environ of naruto or anyone else", async () => {
    const { run } = await contained(
      `ls /proc | grep -E '^[0-9]+$' | wc -l; cat /proc/${process.pid}/environ 2>&1 | head -c 200; echo; cat /proc/self/environ | tr '\\0' '\\n' | grep -c SECRET_OF_NARUTO`,
    );
    const lines = run.output.trim().split("\n");
    expect(Number(lines[0])).toBeLessThan(10);
    expect(lines[1]).toMatch(/No such file or directory/);
    expect(run.output).not.toContain("PATH=");
    expect(lines.at(-1)).toBe("1");
  });

  it("runs without capabilities, as root too", async () => {
    const { run } = await contained("grep CapEff /proc/self/status");
    expect(run.output.trim()).toBe("CapEff:\t0000000000000000");
  });

  it.skipIf(netSkip !== null)(
    `keeps the host's loopback and abstract sockets out of reach by default; network: host reaches them, network: false nothing${netSkip ? ` (skipped: ${netSkip})` : ""}`,
    async () => {
      const abstract = `naruto-test-${randomBytes(4).toString("hex")}`;
      const answer = (what: string) => createServer((socket) => socket.on("error", () => undefined).end(`${what}\n`));
      const servers = [answer("loopback"), answer("abstract")];
      await new Promise<void>((r) => servers[0]?.listen(0, "127.0.0.1", () => r()));
      await new Promise<void>((r) => servers[1]?.listen({ path: `\0${abstract}` }, () => r()));
      cleanup.push(() => Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r())))).then(() => undefined));
      const port = (servers[0]!.address() as { port: number }).port;
      const knock = (target: string) =>
        `require("net").connect(${target}).on("data", d => { process.stdout.write(String(d)); done() }).on("error", e => { console.log(e.code); done() })`;
      const both = `node -e 'let n = 0; const done = () => ++n === 2 && process.exit(0); ${knock(`${port}, "127.0.0.1"`)}; ${knock(`{ path: "\\0${abstract}" }`)}' | sort`;
      const sandbox = await bwrapSandbox({ ownNetwork: true });
      expect(sandbox.network).toMatchObject({ kind: "isolated", via: expect.stringMatching(/^slirp4netns/) });
      const knocked = async (network: SandboxRun["network"]) => {
        const dir = await bareWorkDir();
        cleanup.push(() => dir.remove());
        return (await sandbox.run({ command: both, workDir: dir, env: { PATH: process.env.PATH ?? "" }, network, timeoutMs: 30_000 })).output
          .trim()
          .split("\n");
      };
      for (const answer of await knocked(true)) expect(answer).toMatch(/^(ECONNREFUSED|ENETUNREACH|ENOENT)$/);
      // Names resolve through slirp4netns's forwarder, in a file the command can read (as the sandbox user too).
      const dir = await bareWorkDir();
      cleanup.push(() => dir.remove());
      expect((await sandbox.run({ command: "cat /etc/resolv.conf", workDir: dir, env: {}, network: true, timeoutMs: 30_000 })).output).toBe(
        "nameserver 10.0.2.3\n",
      );
      expect(await knocked("host")).toEqual(["abstract", "loopback"]);
      for (const answer of await knocked(false)) expect(answer).toMatch(/^(ECONNREFUSED|ENETUNREACH|ENOENT)$/);
    },
  );

  it("keeps /dev read-only, gives /tmp and /dev/shm their size, and ends a command at the file size limit, saying so", async () => {
    const limits = { ...DEFAULT_LIMITS, fileSize: 1024 * 1024, tmp: 2 * 1024 * 1024 };
    const { run } = await contained(
      `(echo x > /dev/x) 2>/dev/null || echo dev-read-only; for d in /tmp /dev/shm; do head -c 3145728 /dev/zero > $d/big 2>/dev/null || echo "$d full at $(stat -c %s $d/big)"; rm $d/big; done`,
      { limits: { ...limits, fileSize: 8 * 1024 * 1024 } },
    );
    expect(run.output).toBe("dev-read-only\n/tmp full at 2097152\n/dev/shm full at 2097152\n");
    const huge = await contained('head -c 1048576 /dev/zero > "$HOME/ok"; exec head -c 2097152 /dev/zero > "$HOME/big"', { limits });
    expect(huge.run.limit).toEqual({ limit: "file_size", of: 1024 * 1024 });
    expect((await stat(join(huge.dir.home, "big"))).size).toBe(1024 * 1024);
    expect(describeLimitHit(huge.run.limit!)).toMatch(/^the agent reached its file size limit \(limits\.agent_file_size: 1MiB\)/);
  });

  it("names the memory limit when a process seen past half of it is ended at its ceiling (RLIMIT_DATA, twice the limit)", async () => {
    const MiB = 1024 ** 2;
    const limits = { ...DEFAULT_LIMITS, memory: 256 * MiB };
    // 160 MiB a MiB at a time, held for 2 s (four of the watch's slowest intervals, so that a
    // loaded machine's watch still sees it past half the limit, and under it), then one
    // allocation past the ceiling of 512 MiB, faster than any look: refused, the process ends.
    const grow = `const held = []; const step = () => { for (let i = 0; i < 4; i++) held.push(Buffer.alloc(1 << 20, 1)); if (held.length < 160) setTimeout(step, 10); else setTimeout(() => { held.push(Buffer.alloc(600 << 20, 1)); console.log("not refused"); }, 2000); }; step();`;
    const { run } = await contained(`exec ${JSON.stringify(process.execPath)} -e '${grow}'`, { limits });
    expect(run.output).not.toContain("not refused");
    expect(run.exitCode).not.toBe(0);
    expect(run.limit).toMatchObject({ limit: "memory", of: limits.memory, by: "ceiling" });
    expect(describeLimitHit(run.limit!)).toMatch(
      /^the agent reached its memory limit \(limits\.agent_memory: 256MiB; its processes held \d+ MiB when naruto last looked/,
    );
  });

  it("reads the start commit's objects but cannot write them", async () => {
    const objects = await mkdtemp(join(tmpdir(), "naruto-objects-"));
    cleanup.push(() => rm(objects, { recursive: true, force: true }));
    await writeFile(join(objects, "blob"), "object\n");
    // As git makes an object store: readable by anyone (an agent of a naruto running as root is another user).
    await chmod(objects, 0o755);
    const dir = await bareWorkDir();
    cleanup.push(() => dir.remove());
    const sandbox = await bwrapSandbox();
    const run = await sandbox.run({
      command: `cat ${objects}/blob; (echo x > ${objects}/new) 2>/dev/null || echo refused`,
      workDir: { ...dir, startObjects: [objects] },
      env: { PATH: process.env.PATH ?? "" },
      network: true,
      timeoutMs: 10_000,
    });
    expect(run.output).toBe("object\nrefused\n");
  });

  it("takes every process of the sandbox along when naruto itself is killed", async () => {
    const marker = randomBytes(6).toString("hex");
    const dir = await bareWorkDir();
    cleanup.push(() => dir.remove());
    // A naruto stand-in: starts a sandboxed lingerer in a session of its own, then is SIGKILLed.
    const script = join(dir.root, "runner.mts");
    await writeFile(
      script,
      `import { bwrapSandbox } from ${JSON.stringify(new URL("../../test/support/sandbox.ts", import.meta.url).pathname)};
const dir = JSON.parse(process.argv[2]);
const s = await bwrapSandbox();
console.log("started");
await s.run({ command: "setsid sh -c 'exec sleep 1000' < /dev/null > /dev/null 2>&1 & exec sleep 1001", workDir: dir, env: { PATH: process.env.PATH, MARK: ${JSON.stringify(marker)} }, network: true, timeoutMs: 60000 });
`,
    );
    const runner = spawn(process.execPath, ["--import", "tsx", script, JSON.stringify(dir)], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((r) => runner.stdout.once("data", () => r()));
    for (let waited = 0; waited < 10_000 && (await processesWithEnv(`MARK=${marker}`)).length < 2; waited += 50) await new Promise((r) => setTimeout(r, 50));
    expect((await processesWithEnv(`MARK=${marker}`)).length).toBeGreaterThanOrEqual(2);
    runner.kill("SIGKILL");
    let left = await processesWithEnv(`MARK=${marker}`);
    for (let waited = 0; waited < 30_000 && left.length > 0; waited += 50) {
      await new Promise((r) => setTimeout(r, 50));
      left = await processesWithEnv(`MARK=${marker}`);
    }
    expect(left).toEqual([]);
  });

  it("lets the command write its HOME, /tmp and /dev/shm, and naruto still read and change what it left, in a folder it locked too", async () => {
    const { run, dir } = await contained(
      `echo home > "$HOME/h" && echo tmp > /tmp/t && echo shm > /dev/shm/s && cat "$HOME/h" /tmp/t /dev/shm/s; mkdir locked; echo mine > locked/f; chmod 0444 locked/f; chmod 0500 locked`,
    );
    expect(run.output).toBe("home\ntmp\nshm\n");
    const locked = join(dir.path, "locked");
    // Its files are its user's: naruto's own, or as root its sandbox user's (root reads them all the same).
    const owner = (await stat(dir.path)).uid;
    expect(process.getuid?.() === 0 ? isSandboxUid(owner) : owner === process.getuid?.()).toBe(true);
    for (const path of [locked, join(locked, "f"), join(dir.home, "h")]) expect((await stat(path)).uid, path).toBe(owner);
    expect(await readFile(join(locked, "f"), "utf8")).toBe("mine\n");
    await chmod(locked, 0o700);
    await writeFile(join(locked, "f"), "naruto's\n");
  });

  // Codex CLI runs every command of its own in a bubblewrap sandbox of its own (a user namespace
  // mapping its uid). Root without capabilities cannot map its uid there ("setting up uid map:
  // Operation not permitted"); the sandbox user can, like every ordinary user's bwrap.
  const asRoot = process.getuid?.() === 0;
  it.skipIf(!asRoot)(
    `as root, runs the command as an unprivileged user who cannot read root's files, and can start a sandbox of its own${asRoot ? "" : " (skipped: naruto is not root here)"}`,
    async () => {
      const secrets = await mkdtemp(join(tmpdir(), "naruto-root-only-"));
      cleanup.push(() => rm(secrets, { recursive: true, force: true }));
      await writeFile(join(secrets, "token"), "root's\n", { mode: 0o600 });
      await chmod(secrets, 0o755);
      const nested =
        'bwrap --unshare-user --unshare-pid --die-with-parent --ro-bind / / --dev /dev --bind "$PWD" "$PWD" -- sh -c \'id -u; echo nested > nested.txt; (echo x > /etc/nested) 2>/dev/null || echo etc-read-only\'';
      const { run, dir } = await contained(
        `id -u; id -G; grep -E 'Cap(Eff|Prm|Bnd)' /proc/self/status; cat /etc/shadow ${join(secrets, "token")} 2>&1 | sed 's/^.*: //'; ${nested}`,
        { readOnly: [secrets] },
      );
      const uid = Number(run.output.split("\n")[0]);
      expect(isSandboxUid(uid), String(uid)).toBe(true);
      expect(run.output).toBe(
        `${uid}\n${uid}\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\nPermission denied\nPermission denied\n${uid}\netc-read-only\n`,
      );
      expect(run.exitCode).toBe(0);
      expect(await readFile(join(dir.path, "nested.txt"), "utf8")).toBe("nested\n");
      expect((await stat(join(dir.path, "nested.txt"))).uid).toBe(uid);
    },
  );

  // RLIMIT_NPROC counts a user's processes machine-wide: one user for all would let one agent's
  // fork bomb take every other agent's threads (user-pool.ts).
  it.skipIf(!asRoot)(
    `as root, runs each sandbox at work as a user of its own, whose processes count apart, and a work directory again as the user it had${asRoot ? "" : " (skipped: naruto is not root here)"}`,
    async () => {
      const sandbox = await bwrapSandbox();
      const dirs = [await bareWorkDir(), await bareWorkDir()] as const;
      for (const d of dirs) cleanup.push(() => d.remove());
      const idIn = async (dir: (typeof dirs)[number], command: string) => {
        const limits = { ...DEFAULT_LIMITS, processes: 16 };
        const run = await sandbox.run({ command, workDir: dir, env: { PATH: "/usr/bin:/bin" }, network: false, timeoutMs: 30_000, limits });
        expect(run.exitCode, run.output).toBe(0);
        return Number(run.output.trim().split("\n").at(-1));
      };
      // Each holds 13 of its 16 processes until a go that comes once both hold them: as one user
      // they would be 26 of 16, and the second could not fork.
      const holding = `for i in $(seq 12); do sleep 60 & held="$held $!"; done; touch started; while ! test -e go; do sleep 0.05; done; kill $held; wait; id -u`;
      const runs = Promise.all(dirs.map((d) => idIn(d, holding)));
      const started = (d: (typeof dirs)[number]) =>
        stat(join(d.path, "started")).then(
          () => true,
          () => false,
        );
      for (let waited = 0; !((await started(dirs[0])) && (await started(dirs[1]))); waited += 50) {
        if (waited > 20_000) throw new Error("the two sandboxes did not both start");
        await new Promise((r) => setTimeout(r, 50));
      }
      for (const d of dirs) await writeFile(join(d.path, "go"), "");
      const [a = 0, b = 0] = await runs;
      expect([isSandboxUid(a), isSandboxUid(b)]).toEqual([true, true]);
      expect(a).not.toBe(b);
      expect(await idIn(dirs[0], "id -u")).toBe(a);
    },
  );

  const asUser = process.getuid?.() === 0 && spawnSync("setpriv", ["--version"]).status === 0;
  it.skipIf(!asUser)(`works for an ordinary user too${asUser ? "" : " (skipped: needs root and setpriv to become one)"}`, async () => {
    const dir = await bareWorkDir();
    cleanup.push(() => dir.remove());
    spawnSync("chown", ["-R", "65534:65534", dir.root]);
    const args = bwrapArgs(
      { command: "id -u; echo ok > out; cat out; grep CapEff /proc/self/status", workDir: dir, env: {}, network: false, timeoutMs: 1 },
      { system: await readSystem(), user: null },
    );
    const result = spawnSync("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "bwrap", ...args], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "" },
      stdio: ["ignore", "pipe", "pipe", "pipe"],
    });
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("65534\nok\nCapEff:\t0000000000000000\n");
  });
});
