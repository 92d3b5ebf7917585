/**
 * Which sandbox a run uses (config `sandbox:`, or `--sandbox`): `auto` uses bubblewrap when a
 * probe run of it works and otherwise runs unsandboxed and says why; `required` fails instead;
 * `none` is the user's explicit choice, said as such. A naruto running as root never falls back:
 * without a working sandbox its agents would run as root, so `auto` refuses as `required` does
 * (docs/architecture.md). The probe runs once per process.
 */
import { spawn } from "node:child_process";
import { constants } from "node:fs";
import { access } from "node:fs/promises";
import type { SandboxMode } from "../config/index.ts";
import { createBwrapSandbox } from "./bwrap.ts";
import { readSystem } from "./system-paths.ts";
import { probeUserNet, type NetProbe } from "./probe-net.ts";
import type { Sandbox } from "./sandbox.ts";
import { becomeUser, capabilityArgs, sandboxUserFor, SETPRIV, type SandboxUser } from "./sandbox-user.ts";
import { createUnsandboxed } from "./unsandboxed.ts";

const INSTALL = "install bubblewrap (Debian and Ubuntu: apt-get install bubblewrap; on Ubuntu 24.04 also allow its user namespaces, see docs/action.md)";

/**
 * Bubblewrap does not work here, and the run may not go on without it: `sandbox: required`, or
 * naruto is root; or, with `sandbox: required`, the agents' own network does not work here.
 */
export class SandboxUnavailableError extends Error {
  override readonly name = "SandboxUnavailableError";
  constructor(
    readonly reason: string,
    /** Why a sandbox is a must: the config says so, or naruto runs as root. */
    readonly because: "required" | "root" = "required",
    /** What does not work: bubblewrap, or (`sandbox: required`) the agents' own network. */
    readonly missing: "bwrap" | "network" = "bwrap",
  ) {
    super(
      missing === "network"
        ? `the sandbox is required (sandbox: required), but the agents' own network does not work here (${reason}): install slirp4netns ` +
            "(Debian and Ubuntu: apt-get install slirp4netns; it needs /dev/net/tun), or set sandbox: auto to let agents use the host's network where it cannot be had"
        : because === "required"
          ? `the sandbox is required (sandbox: required), but ${reason}: ${INSTALL}, or set sandbox: auto to run without it`
          : `naruto runs as root and never starts agents as root without a sandbox, but ${reason}: ${INSTALL} (agents then run as an unprivileged user), run naruto as an ordinary user, or choose sandbox: none (or --sandbox none) explicitly, which runs them as root and never approves the result`,
    );
  }
}

export type { NetProbe } from "./probe-net.ts";

/**
 * On a CI runner (GitHub Actions) untrusted code runs only in the sandbox (issue 32): beside
 * naruto's step it could read the runner's file-command paths from `/proc/<pid>/environ` and
 * write the step's outputs, the job's environment and its summary, and a process it leaves in a
 * session of its own would live on into the steps that hold tokens. So on a runner `sandbox:
 * none` is refused, and `auto` without a working sandbox fails instead of running without one.
 */
export class SandboxRequiredOnRunnerError extends Error {
  override readonly name = "SandboxRequiredOnRunnerError";
  constructor(
    readonly reason: string,
    fix: string,
  ) {
    super(`on a GitHub Actions runner naruto runs agents and verify commands only in the sandbox, and ${reason}: ${fix}`);
  }
}

export type Probe =
  | {
      readonly ok: true;
      readonly version: string;
      /** Who commands run as (see sandbox-user.ts): an unprivileged user of their own when naruto is root. */
      readonly user: SandboxUser;
    }
  | { readonly ok: false; readonly reason: string };

export interface ChooseOptions {
  readonly mode: SandboxMode;
  /** The bwrap executable (default `bwrap` on PATH). */
  readonly binary?: string;
  /** Whether bwrap works here (default: run it once, see {@link probeBwrap}). */
  readonly probe?: () => Promise<Probe>;
  /** Where to look for bwrap: the runner's PATH. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** naruto's uid (default `process.getuid()`). */
  readonly uid?: number;
  /** The slirp4netns executable (default `slirp4netns`). */
  readonly slirp?: string;
  /** Whether the agents' own network works here (default: try it once, see probe-net.ts). */
  readonly probeNet?: (found: {
    readonly version: string;
    readonly user: SandboxUser;
    readonly system: Awaited<ReturnType<typeof readSystem>>;
  }) => Promise<NetProbe>;
  /** On a CI runner: only the sandbox (see {@link SandboxRequiredOnRunnerError}). */
  readonly runner?: boolean;
}

/**
 * The sandbox of a run: bubblewrap where it works (with the agents' own network where that works
 * too, else the host's, said in the description), else none, said likewise; `required` fails
 * instead of doing without either.
 */
export async function chooseSandbox(options: ChooseOptions): Promise<Sandbox> {
  const uid = options.uid ?? process.getuid?.();
  if (options.mode === "none" && options.runner === true) {
    throw new SandboxRequiredOnRunnerError(
      "the config says sandbox: none",
      "remove `sandbox: none` from .github/naruto.yml (it is for your own machine); the workflow's naruto sandbox step prepares bubblewrap",
    );
  }
  if (options.mode === "none") return createUnsandboxed({ reason: "sandbox: none was chosen", ...(uid === undefined ? {} : { uid }) });
  const binary = options.binary ?? "bwrap";
  const probe = await (options.probe ?? (() => probeBwrap({ binary, path: options.env.PATH, ...(uid === undefined ? {} : { uid }) })))();
  if (probe.ok) {
    const system = await readSystem();
    const found = { version: probe.version, user: probe.user, system };
    const net = await (
      options.probeNet ??
      ((f) =>
        probeUserNet({
          ...f,
          bwrap: binary,
          path: options.env.PATH,
          ...(options.slirp ? { slirp: options.slirp } : {}),
          ...(options.env.TMPDIR ? { tmp: options.env.TMPDIR } : {}),
        }))
    )(found);
    if (!net.ok && options.mode === "required") throw new SandboxUnavailableError(net.reason, "required", "network");
    return createBwrapSandbox({
      ...(options.binary ? { binary: options.binary } : {}),
      version: probe.version,
      system,
      user: probe.user,
      ...(net.ok ? { net: net.net } : { net: null, hostNetworkReason: net.reason }),
    });
  }
  if (options.runner === true) {
    throw new SandboxRequiredOnRunnerError(
      probe.reason,
      "keep the workflow's naruto sandbox step before this one (templates/naruto.yml: it installs bubblewrap and allows its user namespaces); on a self-hosted runner install bubblewrap (docs/action.md)",
    );
  }
  if (options.mode === "required") throw new SandboxUnavailableError(probe.reason);
  if (uid === 0) throw new SandboxUnavailableError(probe.reason, "root");
  return createUnsandboxed({ reason: probe.reason, ...(uid === undefined ? {} : { uid }) });
}

/**
 * What to say once before agents run when `network: true` gets the host's network here (the way
 * the unsandboxed case is said); null when it gets its own, or there is no sandbox at all (said
 * as such).
 */
export function networkWarning(sandbox: Sandbox): string | null {
  if (sandbox.kind === "none") return null;
  if (sandbox.network.kind === "isolated") return sandbox.network.gap ? `agents have a network of their own, but ${sandbox.network.gap}` : null;
  return `agents reach the host's network, its loopback, abstract sockets and LAN included: ${sandbox.network.reason}`;
}

const probes = new Map<string, Promise<Probe>>();

export interface ProbeOptions {
  readonly binary: string;
  /** Where to look for it: the runner's PATH. */
  readonly path: string | undefined;
  /** naruto's uid (default `process.getuid()`): as root, commands run as the sandbox user (see sandbox-user.ts). */
  readonly uid?: number;
}

/**
 * Runs `bwrap … true` with the namespaces naruto asks for, as the user commands will run as:
 * what fails here (no bwrap, no user namespaces for it, an AppArmor rule, no `setpriv` for root
 * to become the sandbox user) fails the probe with the tool's own words.
 */
export function probeBwrap(options: ProbeOptions): Promise<Probe> {
  const { binary } = options;
  const user = sandboxUserFor(options.uid ?? process.getuid?.());
  const env = { PATH: options.path ?? "/usr/bin:/bin" };
  const key = `${binary}\0${user === null ? "" : `${user.uid}:${user.gid}`}`;
  let found = probes.get(key);
  if (found === undefined) {
    found = (async (): Promise<Probe> => {
      const version = await execute(binary, ["--version"], env);
      if (version.error !== null)
        return { ok: false, reason: version.error.includes("ENOENT") ? "bwrap not found" : `bwrap could not start: ${version.error}` };
      if (
        user !== null &&
        !(await access(SETPRIV, constants.X_OK).then(
          () => true,
          () => false,
        ))
      ) {
        return { ok: false, reason: `${SETPRIV} is not installed (util-linux), which naruto as root needs to run agents as an unprivileged user` };
      }
      const args = [
        ...capabilityArgs(user),
        "--ro-bind",
        "/",
        "/",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--unshare-pid",
        "--new-session",
        "--die-with-parent",
        "--",
        ...becomeUser(user),
        "true",
      ];
      const run = await execute(binary, args, env);
      if (run.error !== null || run.code !== 0) {
        const said = (run.error ?? run.output).trim().split("\n").at(-1) ?? "";
        return { ok: false, reason: `bwrap does not work here${said ? `: ${said.replace(/^bwrap: /, "")}` : ""}` };
      }
      return { ok: true, version: version.output.trim().split("\n")[0] ?? "bwrap", user };
    })();
    probes.set(key, found);
  }
  return found;
}

function execute(file: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string; error: string | null }> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"], env });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    child.stderr.on("data", (c: Buffer) => chunks.push(c));
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.on("error", (e) => {
      clearTimeout(timer);
      resolve({ code: null, output: "", error: `${(e as NodeJS.ErrnoException).code ?? ""} ${e.message}`.trim() });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output: Buffer.concat(chunks).toString("utf8"), error: null });
    });
  });
}
