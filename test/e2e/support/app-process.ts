/**
 * The naruto App as its own process, exactly as `npm start` runs it (`node build/app.js`, the
 * build made current first, as `prestart` does), configured only through its environment. The process runs in an empty
 * folder so a developer's `.env` in the checkout cannot change what a scenario tests.
 *
 * @example
 *   const app = await startAppProcess({ env: { APP_ID, PRIVATE_KEY, WEBHOOK_SECRET, GHE_HOST, GHE_PROTOCOL: "http" } });
 *   await fake.deliver({ event, payload, url: app.url });
 *   await app.kill();      // SIGKILL: nothing gets to finish
 *   await app.start();     // the same port, a fresh process
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const MAIN = join(ROOT, "build", "app.js");
/** How long a start may take on a loaded machine before it counts as failed. */
const START_TIMEOUT_MS = 60_000;
const LOG_KEEP = 200_000;

export interface AppProcess {
  /** The webhook URL (`http://127.0.0.1:PORT/api/github/webhooks`); the same across restarts. */
  readonly url: string;
  readonly port: number;
  /** The pid of the running process, or null while stopped. */
  readonly pid: number | null;
  /** Starts the process (again) on the same port; resolves once it answers HTTP. */
  start(): Promise<void>;
  /** SIGKILL: the process dies wherever it is, as on a crashed host. */
  kill(): Promise<void>;
  /** SIGTERM, the graceful stop `main.ts` handles. */
  stop(): Promise<void>;
  restart(): Promise<void>;
  /**
   * Resolves once the App handles no delivery (`GET /healthz` says `in_flight: 0`): it answers
   * deliveries at once and handles them after. At once while the process is stopped.
   */
  idle(): Promise<void>;
  /** What the process printed (stdout and stderr, every start), for failure messages. */
  logs(): string;
  /** Stops the process and removes its folder. */
  close(): Promise<void>;
}

export interface AppProcessInput {
  readonly env: Readonly<Record<string, string>>;
  /** The port to listen on; a free one by default. */
  readonly port?: number;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("could not find a free port");
  return address.port;
}

export async function startAppProcess(input: AppProcessInput): Promise<AppProcess> {
  const port = input.port ?? (await freePort());
  const cwd = await mkdtemp(join(tmpdir(), "naruto-app-"));
  const url = `http://127.0.0.1:${port}/api/github/webhooks`;
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  let logs = "";
  const keep = (chunk: Buffer) => {
    logs = (logs + chunk.toString("utf8")).slice(-LOG_KEEP);
  };

  const answers = async (): Promise<boolean> => {
    try {
      await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1_000) });
      return true;
    } catch {
      return false;
    }
  };

  const start = async () => {
    if (child !== null) throw new Error("the App process is running already: stop or kill it first");
    logs += `--- start ${new Date().toISOString()}\n`;
    // `npm start`'s prestart: rebuild build/ when a source is newer (bin/fresh-build.js).
    const fresh = spawnSync(process.execPath, [join(ROOT, "bin", "fresh-build.js")], { encoding: "utf8" });
    if (fresh.status !== 0) throw new Error(`build/app.js could not be made current:\n${fresh.stderr}`);
    const spawned = spawn(process.execPath, [MAIN], {
      cwd,
      env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: cwd, NODE_ENV: "production", ...input.env, PORT: String(port), HOST: "127.0.0.1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child = spawned;
    spawned.stdout.on("data", keep);
    spawned.stderr.on("data", keep);
    let gone = false;
    exited = new Promise<void>((resolve) =>
      spawned.once("exit", (code, signal) => {
        gone = true;
        logs += `--- exited ${code === null ? `on ${signal}` : `with ${code}`}\n`;
        if (child === spawned) child = null;
        resolve();
      }),
    );
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!(await answers())) {
      if (gone) throw new Error(`the App process exited before it listened:\n${logs.slice(-4_000)}`);
      if (Date.now() > deadline) {
        spawned.kill("SIGKILL");
        throw new Error(`the App process did not answer on port ${port} within ${START_TIMEOUT_MS / 1000} s:\n${logs.slice(-4_000)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  const signal = async (name: NodeJS.Signals) => {
    const running = child;
    if (running === null) return;
    running.kill(name);
    // A graceful stop waits for open connections; a stop that hangs is a kill.
    const hung = setTimeout(() => running.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(hung);
  };

  const idle = async () => {
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (child === null) return;
      const health = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(5_000) })
        .then((r) => r.json() as Promise<{ in_flight?: unknown }>)
        .catch(() => null);
      if (health === null && child === null) return;
      if (health !== null && health.in_flight === 0) return;
      if (Date.now() > deadline) throw new Error(`the App process was still handling deliveries after ${START_TIMEOUT_MS / 1000} s:\n${logs.slice(-4_000)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  await start();
  return {
    idle,
    url,
    port,
    get pid() {
      return child?.pid ?? null;
    },
    start,
    kill: () => signal("SIGKILL"),
    stop: () => signal("SIGTERM"),
    restart: async () => {
      await signal("SIGTERM");
      await start();
    },
    logs: () => logs,
    close: async () => {
      await signal("SIGKILL");
      await rm(cwd, { recursive: true, force: true });
    },
  };
}
