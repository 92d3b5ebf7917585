/**
 * How one bubblewrap run is started (bwrap.ts says what it shows): the command line, the
 * descriptors naruto talks to bwrap through, and what naruto does once it started — in a network
 * of the command's own, slirp4netns on the outer layer's namespaces before the command may start
 * (user-net.ts); always, the watch over the sandbox's limits (limit-watch.ts) — and, after it
 * ended, the sweep that waits for its namespace to be gone.
 */
import type { ChildProcess } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { bwrapArgs, type BwrapChannels, type BwrapSetup } from "./bwrap.ts";
import { killProcessesWithEnv, newTrackingValue, TRACKING_ENV } from "./leftovers.ts";
import { ceilingHit, watchLimits, type LimitWatch } from "./limit-watch.ts";
import { DEFAULT_LIMITS, SIGXFSZ_EXIT, type LimitHit } from "./limits.ts";
import type { Attachment, Launch } from "./run-process.ts";
import { HOST_NETWORK_FIX, type RelaySpec } from "./reach.ts";
import type { SandboxRun } from "./sandbox.ts";
import { blockedDestinations, BWRAP_INFO, outerLayer, PID_LINE, readPid, RESOLV_CONF, startSlirp, type SlirpRun, type UserNet } from "./user-net.ts";

/** The descriptors of each kind of run: 3 upwards, in the order the launch asks for pipes. */
const SHARED: BwrapChannels = { info: 3, network: "shared" };
const OUTER_PID = 3;
const OWN: BwrapChannels = { info: 4, network: "own", block: 5, resolv: 6 };
/** The relay's exit pipe (reach.ts): it ends when naruto closes its end. */
const RELAY_EXIT = 7;

export interface BwrapLaunchInput {
  readonly binary: string;
  readonly request: SandboxRun;
  readonly setup: BwrapSetup;
  /** The command's own network; null: the host's (or none, with `network: false`). */
  readonly net: UserNet | null;
  /** The endpoints carried into the command's own network (reach.ts), or none. */
  readonly relay?: RelaySpec | null;
  readonly kill?: (pid: number, signal: NodeJS.Signals) => void;
}

/** A launch for runProcess, plus what it learns of how the run ended (a file past its size limit). */
export function bwrapLaunch(input: BwrapLaunchInput): Launch & { readonly ended: (exitCode: number | null) => LimitHit | null } {
  const { request, setup, net } = input;
  const limits = request.limits ?? DEFAULT_LIMITS;
  // bwrap hands its own environment to the command: it is the command's, and nothing else.
  const tracking = newTrackingValue();
  const env = { ...request.env, HOME: request.workDir.home, TMPDIR: "/tmp", [TRACKING_ENV]: tracking };
  const channels = net === null ? SHARED : OWN;
  let watch: LimitWatch | null = null;
  const inner = bwrapArgs(request, setup, channels);
  const args =
    net === null
      ? inner
      : outerLayer({
          bwrap: input.binary,
          ip: net.ip,
          blocked: blockedDestinations(),
          pidFd: OUTER_PID,
          inner,
          root: setup.user !== null,
          relay: input.relay ? { spec: input.relay, exitFd: RELAY_EXIT } : null,
        });

  const attach = async (child: ChildProcess, stop: (hit: LimitHit) => void): Promise<Attachment> => {
    const pipe = (fd: number) => child.stdio[fd] as (Readable & Writable) | null | undefined;
    // A bwrap that ended early closes its ends: what is written then is lost, and that is all.
    for (let fd = 3; fd <= RELAY_EXIT; fd++) pipe(fd)?.on("error", () => undefined);
    let slirp: SlirpRun | null = null;
    const detach = async () => {
      watch?.stop();
      for (let fd = 3; fd <= RELAY_EXIT; fd++) pipe(fd)?.destroy();
      await slirp?.stop();
    };
    if (channels.network === "own" && net !== null) {
      pipe(channels.resolv)?.end(RESOLV_CONF);
      const outer = await readPid(pipe(OUTER_PID) as Readable, child, PID_LINE);
      // A relay that could not listen ended the outer layer; its words are in the output.
      if (outer === null)
        return {
          failed: input.relay ? `the endpoints given to the agent could not be carried into its own network: ${HOST_NETWORK_FIX.replace(/^or /, "")}` : null,
          detach,
        };
      const started = await startSlirp(net, outer);
      if (!started.ok) return { failed: `the sandbox's network could not be set up: ${started.reason}`, detach };
      slirp = started.run;
    }
    const pid = await readPid(pipe(channels.info) as Readable, child, BWRAP_INFO);
    if (pid === null) return { failed: null, detach };
    watch = watchLimits({ sandbox: { pid }, limits, onHit: stop });
    // The network is up (or the command has the host's): the command may start.
    if (channels.network === "own") pipe(channels.block)?.end("1");
    return { failed: null, detach };
  };

  // When bwrap is gone the kernel takes the namespace down, a moment later: wait for that, so
  // that nothing of the run is left when it returns.
  const sweep = async () => {
    const entry = `${TRACKING_ENV}=${tracking}`;
    const kill = input.kill ?? ((pid: number, signal: NodeJS.Signals) => void process.kill(pid, signal));
    for (let waited = 0; waited < 5_000; waited += 20) {
      // bwrap itself (in naruto's namespace) is gone; what it started is in the new one.
      if ((await killProcessesWithEnv(entry, { kill, elsewhere: true })).length === 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    return [];
  };

  return {
    file: input.binary,
    args,
    cwd: request.workDir.path,
    env,
    sweep,
    channels: channels.network === "own" ? RELAY_EXIT - 2 : 1,
    attach,
    // bwrap ends with 128 + the signal that ended the command: SIGXFSZ is the file size limit; a
    // failure right after the watch saw memory past half the limit is the memory limit's ceiling.
    ended: (exitCode) => (exitCode === SIGXFSZ_EXIT ? { limit: "file_size", of: limits.fileSize } : ceilingHit(watch?.last() ?? [], exitCode, limits)),
  };
}
