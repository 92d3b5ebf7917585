/**
 * Which sandbox a run uses (config `sandbox:`, or `--sandbox`): `auto` uses bubblewrap when a
 * probe run of it works and otherwise runs unsandboxed and says why; `required` fails instead;
 * `none` is the user's explicit choice, said as such. The probe runs once per process.
 */
import { spawn } from "node:child_process";
import type { SandboxMode } from "../config/index.ts";
import { createBwrapSandbox, readSystem } from "./bwrap.ts";
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

export type Probe = { readonly ok: true; readonly version: string } | { readonly ok: false; readonly reason: string };

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
  if (probe.ok) return createBwrapSandbox({ ...(options.binary ? { binary: options.binary } : {}), version: probe.version, system: await readSystem() });
  if (options.mode === "required") throw new SandboxUnavailableError(probe.reason);
  return createUnsandboxed({ reason: probe.reason });
}

const probes = new Map<string, Promise<Probe>>();

/**
 * Runs `bwrap … true` with the namespaces naruto asks for: what fails here (no bwrap, no user
 * namespaces for it, an AppArmor rule) fails the probe with bwrap's own words.
 */
export function probeBwrap(options: { binary: string; path: string | undefined }): Promise<Probe> {
  const { binary } = options;
  const env = { PATH: options.path ?? "/usr/bin:/bin" };
  let found = probes.get(binary);
  if (found === undefined) {
    found = (async (): Promise<Probe> => {
      const version = await execute(binary, ["--version"], env);
      if (version.error !== null) return { ok: false, reason: version.error.includes("ENOENT") ? "bwrap not found" : `bwrap could not start: ${version.error}` };
      const run = await execute(binary, ["--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--unshare-pid", "--new-session", "--die-with-parent", "--cap-drop", "ALL", "--", "true"], env);
      if (run.error !== null || run.code !== 0) {
        const said = (run.error ?? run.output).trim().split("\n").at(-1) ?? "";
        return { ok: false, reason: `bwrap does not work here${said ? `: ${said.replace(/^bwrap: /, "")}` : ""}` };
      }
      return { ok: true, version: version.output.trim().split("\n")[0] ?? "bwrap" };
    })();
    probes.set(binary, found);
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
