import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig, type Config } from "../config/index.ts";
import { SANDBOX_USER } from "../sandbox/index.ts";
import { bwrapDeciding, unsandboxed } from "../../test/support/sandbox.ts";
import { checkEndpointsCarried, checkReadPaths, RunRefusedError } from "./preflight.ts";

const made: string[] = [];
afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});

function config(read: readonly string[]): Config {
  const loaded = loadConfig(`agents: { default: { command: "true", read: ${JSON.stringify(read)} } }`);
  if (!loaded.ok) throw new Error("invalid config");
  return loaded.config;
}

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "naruto-preflight-"));
  made.push(dir);
  return dir;
}

describe("checkReadPaths", () => {
  it("refuses a path that is not here, naming where it was given", async () => {
    await expect(checkReadPaths(config(["/nonexistent/naruto-x"]), ["default"], "/h")).rejects.toThrow(
      "the default agent reads /nonexistent/naruto-x (--read, or read: in .github/naruto.yml), which is not here",
    );
  });

  it("as root, refuses what the agents' own user cannot read, with the chmod that fixes it", async () => {
    const dir = await folder(); // mkdtemp: 0700
    const script = join(dir, "agent.sh");
    await writeFile(script, "#!/bin/sh\n");
    await chmod(script, 0o744); // others may read it, not run it
    const refused = checkReadPaths(config([dir, script]), ["default"], "/h", SANDBOX_USER);
    await expect(refused).rejects.toBeInstanceOf(RunRefusedError);
    await expect(refused).rejects.toThrow(`Let others read it (\`chmod o+rX ${dir}\`)`);
    await expect(refused).rejects.toThrow(`\`chmod o+rX ${script}\``);
    await chmod(dir, 0o755);
    await chmod(script, 0o755);
    await expect(checkReadPaths(config([dir, script]), ["default"], "/h", SANDBOX_USER)).resolves.toBeUndefined();
  });

  it("as an ordinary user, the modes are the user's own business", async () => {
    const dir = await folder();
    await expect(checkReadPaths(config([dir]), ["default"], "/h", null)).resolves.toBeUndefined();
  });
});

describe("checkEndpointsCarried", () => {
  const slirp = { slirp: "/usr/bin/slirp4netns", version: "slirp4netns 1.2.0" };
  const withIp = bwrapDeciding({ ...slirp, ip: "/usr/sbin/ip" });
  const withoutIp = bwrapDeciding({ ...slirp, ip: null });
  const profiles = (text: string): Config => {
    const loaded = loadConfig(text);
    if (!loaded.ok) throw new Error("invalid config");
    return loaded.config;
  };
  const gateway = profiles(`agents: { default: { command: "true", env: [GATEWAY_BASE_URL] } }`);

  it("refuses a unix-socket endpoint the agent gets, in the words each attempt would have failed with", async () => {
    const url = "http+unix://%2Frun%2Follama.sock/api";
    const refused = checkEndpointsCarried(gateway, ["default"], { GATEWAY_BASE_URL: url }, withIp);
    await expect(refused).rejects.toBeInstanceOf(RunRefusedError);
    const reason = await withIp.refusedReach([url]);
    expect(reason).toContain("is a unix socket of this machine");
    await expect(refused).rejects.toThrow(`the default agent: ${reason}\nNothing was started.`);
  });

  it("refuses a LAN endpoint where the agents' network has no `ip` to carry it, and takes it where it has", async () => {
    const env = { GATEWAY_BASE_URL: "http://[fd00::2]:8080/v1" };
    await expect(checkEndpointsCarried(gateway, ["default"], env, withoutIp)).rejects.toThrow(
      "fd00::2 cannot be carried into the agents' own network without `ip` (iproute2): install it, or give the agent the host's network (`network: host` in its profile",
    );
    await expect(checkEndpointsCarried(gateway, ["default"], env, withIp)).resolves.toBeUndefined();
  });

  it("reads Codex's base_url from the config.toml the agent is given, and names each profile refused", async () => {
    const codexHome = await folder();
    await writeFile(join(codexHome, "config.toml"), '[model_providers.local]\nbase_url = "unix:///run/gateway.sock"\n');
    const config = profiles(`agents: { default: { command: "true" }, coder: { command: "true", env: [CODEX_HOME] } }`);
    const refused = checkEndpointsCarried(config, ["default", "coder"], { CODEX_HOME: codexHome }, withIp);
    await expect(refused).rejects.toThrow(/^agent profile "coder": unix:\/\/\/run\/gateway\.sock is a unix socket/);
  });

  it("leaves alone what needs no carrying: a variable the profile does not pass, network host or false, no network of its own", async () => {
    const env = { GATEWAY_BASE_URL: "http+unix://%2Frun%2Fx.sock", OTHER_BASE_URL: "http+unix://%2Frun%2Fx.sock" };
    await expect(
      checkEndpointsCarried(profiles(`agents: { default: { command: "true", env: [OTHER_BASE_URL], network: host } }`), ["default"], env, withIp),
    ).resolves.toBeUndefined();
    await expect(
      checkEndpointsCarried(profiles(`agents: { default: { command: "true", env: [OTHER_BASE_URL], network: false } }`), ["default"], env, withIp),
    ).resolves.toBeUndefined();
    await expect(checkEndpointsCarried(profiles(`agents: { default: { command: "true" } }`), ["default"], env, withIp)).resolves.toBeUndefined();
    await expect(checkEndpointsCarried(gateway, ["default"], env, bwrapDeciding(null))).resolves.toBeUndefined();
    await expect(checkEndpointsCarried(gateway, ["default"], env, unsandboxed())).resolves.toBeUndefined();
    await expect(checkEndpointsCarried(gateway, ["default"], env, null)).resolves.toBeUndefined();
  });
});
