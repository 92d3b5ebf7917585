/**
 * `npm run pack-check`: the package `npm pack` makes, installed and run as a user would, in an
 * empty folder outside the repository:
 *
 *   npm pack                                   (runs `prepare`: the build)
 *   npm install ./naruto-<version>.tgz         (its dependencies from npm's cache where it has
 *                                               them, else the npm registry; nothing else)
 *   npx naruto --version, npx naruto --help    (every command listed)
 *   npx naruto init                            (in a scratch repository: the template ships)
 *   npx naruto doctor                          (against the fake GitHub: the workflow parser is
 *                                               bundled, and it judges the file init wrote)
 *   npm start in node_modules/naruto           (the App: GET /healthz answers, SIGTERM ends it)
 *   import { handle } from "naruto/serverless" (the function host's handler refuses an unsigned
 *                                               request with 401)
 *
 * Prints `pack-check STEP ok` per step, or `pack-check STEP FAIL: why` and exits 1. `--keep`
 * keeps the folder. CI runs it (.ci/run); it is not part of `npm test`, which never leaves the
 * machine.
 */
import { execFile, spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startFakeGitHub } from "../test/support/fake-github/index.ts";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const VERSION = (JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const keep = process.argv.includes("--keep");
const dir = await mkdtemp(join(tmpdir(), "naruto-pack-check-"));
const env = { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };

class StepFailed extends Error {}

async function step(name: string, body: () => Promise<void>): Promise<void> {
  try {
    await body();
    console.log(`pack-check ${name} ok`);
  } catch (error) {
    console.log(`pack-check ${name} FAIL: ${error instanceof Error ? error.message : String(error)}`);
    throw new StepFailed();
  }
}

function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}

async function sh(command: string, args: string[], cwd: string, extra: Record<string, string> = {}): Promise<string> {
  const { stdout } = await run(command, args, { cwd, env: { ...env, ...extra }, maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
    });
  });
}

const app = join(dir, "app");
const user = join(dir, "user");
let tarball = "";
try {
  await step("pack", async () => {
    await sh("npm", ["pack", "--pack-destination", dir, "--silent"], ROOT);
    tarball = join(dir, (await readdir(dir)).find((f) => f.endsWith(".tgz")) ?? "");
    check(tarball.endsWith(`naruto-${VERSION}.tgz`), `no naruto-${VERSION}.tgz in ${dir}`);
    const files = (await sh("tar", ["-tzf", tarball], dir)).split("\n");
    for (const wanted of [
      "package/build/cli.js",
      "package/build/app.js",
      "package/build/serverless.js",
      "package/templates/naruto.yml",
      "package/app.yml",
      "package/LICENSE",
      "package/.env.example",
      "package/Dockerfile",
    ]) {
      check(files.includes(wanted), `the package lacks ${wanted.replace("package/", "")}`);
    }
    check(!files.some((f) => f.startsWith("package/src/") || f.startsWith("package/test/")), "the package carries src/ or test/");
  });

  await step("install", async () => {
    await sh("mkdir", ["-p", app, user], dir);
    await writeFile(join(app, "package.json"), JSON.stringify({ name: "naruto-pack-check", private: true, type: "module" }));
    await sh("npm", ["install", "--prefer-offline", "--no-package-lock", tarball], app);
  });

  await step("version", async () => {
    const out = (await sh("npx", ["--no-install", "naruto", "--version"], app)).trim();
    check(out === VERSION, `npx naruto --version printed ${JSON.stringify(out)}, not ${VERSION}`);
    const help = await sh("npx", ["--no-install", "naruto", "--help"], app);
    for (const command of ["init", "upgrade", "doctor", "run", "plan"])
      check(new RegExp(`^  ${command}\\b`, "m").test(help), `naruto --help lists no ${command}`);
  });

  const naruto = join(app, "node_modules", ".bin", "naruto");
  await step("init", async () => {
    await sh("git", ["init", "-q", "-b", "main"], user);
    await sh("git", ["remote", "add", "origin", "https://github.com/acme/demo.git"], user);
    const out = await sh(naruto, ["init", "--agent", "codex"], user);
    check(out.includes("wrote .github/workflows/naruto.yml"), `init printed:\n${out}`);
    check((await sh(naruto, ["init", "--agent", "codex"], user)).includes("unchanged"), "a second init changed something");
  });

  await step("doctor", async () => {
    const fake = await startFakeGitHub();
    try {
      const token = fake.addUser("octo-admin", { permission: "admin" }).token;
      const files = {
        ".github/workflows/naruto.yml": await readFile(join(user, ".github/workflows/naruto.yml"), "utf8"),
        ".github/naruto.yml": await readFile(join(user, ".github/naruto.yml"), "utf8"),
      };
      await fake.createRepo({ owner: "acme", name: "demo", files });
      fake.setActionsSettings({ repo: "acme/demo", secrets: ["CODEX_API_KEY"], canApprovePullRequestReviews: true });
      const out = await sh(naruto, ["doctor", "--token", token, "--api-url", fake.apiUrl], user);
      check(
        /^ok +workflow: .* is a valid workflow \(GitHub's workflow parser\)$/m.test(out) && out.includes("Nothing stops a mission"),
        `doctor printed:\n${out}`,
      );
    } finally {
      await fake.close();
    }
  });

  const { privateKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
  const appEnv: Record<string, string> = {
    APP_ID: "1",
    APP_SLUG: "naruto-pack-check",
    WEBHOOK_SECRET: "pack-check-secret",
    PRIVATE_KEY: privateKey,
    LOG_LEVEL: "warn",
  };

  await step("app", async () => {
    const port = await freePort();
    const server = spawn("npm", ["start", "--silent"], {
      cwd: join(app, "node_modules", "naruto"),
      env: { ...env, ...appEnv, PORT: String(port), HOST: "127.0.0.1" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const pid = server.pid;
    let output = "";
    server.stdout.on("data", (c: Buffer) => (output += c.toString()));
    server.stderr.on("data", (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((resolve) => server.once("exit", (code) => resolve(code)));
    try {
      let health: unknown = null;
      for (let i = 0; i < 100 && health === null; i++) {
        health = await fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => (r.ok ? r.json() : null),
          () => null,
        );
        if (health === null) await new Promise((r) => setTimeout(r, 200));
      }
      check(
        JSON.stringify(health) === JSON.stringify({ status: "ok", in_flight: 0 }),
        `GET /healthz answered ${JSON.stringify(health)}; the server said:\n${output}`,
      );
      const unsigned = await fetch(`http://127.0.0.1:${port}/api/github/webhooks`, {
        method: "POST",
        body: "{}",
        headers: { "content-type": "application/json" },
      });
      check(unsigned.status === 401, `an unsigned delivery got ${unsigned.status}`);
    } finally {
      if (pid !== undefined) process.kill(-pid, "SIGTERM");
    }
    const code = await exited;
    check(code === 0 || code === null, `the server exited ${code} on SIGTERM:\n${output}`);
  });

  await step("serverless", async () => {
    const script = 'const { handle } = await import("naruto/serverless"); const r = await handle({ headers: {}, body: "{}" }); console.log(JSON.stringify(r));';
    const out = await sh(process.execPath, ["--input-type=module", "-e", script], app, appEnv);
    check(JSON.parse(out.trim()).status === 401, `handle() answered ${out.trim()} to an unsigned request`);
  });
} catch (error) {
  if (!(error instanceof StepFailed)) console.log(`pack-check FAIL: ${error instanceof Error ? error.stack : String(error)}`);
  process.exitCode = 1;
} finally {
  if (keep || process.exitCode === 1) console.error(`pack-check: the folder is ${dir}`);
  else await rm(dir, { recursive: true, force: true });
}
