/**
 * Which sandbox a run uses (config `sandbox:`, or `--sandbox`): `auto` uses bubblewrap when a
 * probe run of it works and otherwise runs unsandboxed and says why; `required` fails instead;
 * `none` is the user's explicit choice, said as such. The probe runs once per process.
 */
import { spawn } from "node:child_process";
import type { SandboxMode } from "../config/index.ts";
import { createBwrapSandbox, readSystem, sandboxUserFor, userArgs, type SandboxUser } from "./bwrap.ts";
import type { Sandbox } from "./sandbox.ts";
import { createUnsandboxed } from "./unsandboxed.ts";

/** `sandbox: required`, and bubblewrap does not work here. */
export class SandboxUnavailableError extends Error {
  override readonly name = "SandboxUnavailableError";
  constructor(readonly reason: string) {
    super(
      `the sandbox is required (sandbox: required), but ${reason}: install bubblewrap (Debian and Ubuntu: apt-get install bubblewrap; ` +
        "on Ubuntu 24.04 also allow its user namespaces, see docs/action.md), or set sandbox: auto to run without it",
    );
  }
}

export type Probe =
  | {
      readonly ok: true;
      readonly version: string;
      /** Who commands run as (see bwrap.ts): an ordinary user when naruto is root and bwrap can make a user namespace. */
      readonly user: SandboxUser;
      /** What works less well here, for the description (root without a user namespace). */
      readonly limitation: string | null;
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
}

export async function chooseSandbox(options: ChooseOptions): Promise<Sandbox> {
  if (options.mode === "none") return createUnsandboxed({ reason: "sandbox: none was chosen" });
  const probe = await (options.probe ?? (() => probeBwrap({ binary: options.binary ?? "bwrap", path: options.env.PATH })))();
  if (probe.ok) {
    const sandbox = createBwrapSandbox({ ...(options.binary ? { binary: options.binary } : {}), version: probe.version, system: await readSystem(), user: probe.user });
    return probe.limitation === null ? sandbox : { ...sandbox, description: `${sandbox.description} (${probe.limitation})` };
  }
  if (options.mode === "required") throw new SandboxUnavailableError(probe.reason);
  return createUnsandboxed({ reason: probe.reason });
}

const probes = new Map<string, Promise<Probe>>();

export interface ProbeOptions {
  readonly binary: string;
  /** Where to look for it: the runner's PATH. */
  readonly path: string | undefined;
  /** naruto's uid (default `process.getuid()`): as root, commands run in a user namespace (see bwrap.ts). */
  readonly uid?: number;
}

/**
 * Runs `bwrap … true` with the namespaces naruto asks for: what fails here (no bwrap, no user
 * namespaces for it, an AppArmor rule) fails the probe with bwrap's own words. As root it first
 * tries the user namespace commands then run in (see bwrap.ts); where only that fails, commands
 * run as root without one, and the probe says what that costs.
 */
export function probeBwrap(options: ProbeOptions): Promise<Probe> {
  const { binary } = options;
  const user = sandboxUserFor(options.uid ?? process.getuid?.());
  const env = { PATH: options.path ?? "/usr/bin:/bin" };
  const key = `${binary}\0${user === null ? "" : "own-user"}`;
  let found = probes.get(key);
  if (found === undefined) {
    found = (async (): Promise<Probe> => {
      const version = await execute(binary, ["--version"], env);
      if (version.error !== null) return { ok: false, reason: version.error.includes("ENOENT") ? "bwrap not found" : `bwrap could not start: ${version.error}` };
      const probe = (as: SandboxUser) => execute(binary, [...userArgs(as), "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--unshare-pid", "--new-session", "--die-with-parent", "--cap-drop", "ALL", "--", "true"], env);
      const name = version.output.trim().split("\n")[0] ?? "bwrap";
      if (user !== null) {
        const own = await probe(user);
        if (own.error === null && own.code === 0) return { ok: true, version: name, user, limitation: null };
      }
      const run = await probe(null);
      if (run.error !== null || run.code !== 0) {
        const said = (run.error ?? run.output).trim().split("\n").at(-1) ?? "";
        return { ok: false, reason: `bwrap does not work here${said ? `: ${said.replace(/^bwrap: /, "")}` : ""}` };
      }
      return { ok: true, version: name, user: null, limitation: user === null ? null : "as root without a user namespace: an agent's own sandbox, Codex CLI's, cannot start" };
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
