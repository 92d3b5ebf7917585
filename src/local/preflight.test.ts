import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig, type Config } from "../config/index.ts";
import { SANDBOX_USER } from "../sandbox/index.ts";
import { checkReadPaths, RunRefusedError } from "./preflight.ts";

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
