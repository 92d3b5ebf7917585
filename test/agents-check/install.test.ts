import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agentsCacheRoot, InstallError, installCli, installDir } from "../../scripts/agents-check/install.ts";

// A stand-in `npm` that logs its arguments and lays out what `npm install --prefix DIR PKG@V`
// would: DIR/node_modules/PKG/package.json and a bin link; or fails when told to.
const FAKE_NPM = (log: string) => `#!/bin/sh
echo "$@" >> ${log}
[ -n "$FAKE_NPM_FAIL" ] && { echo "npm error code E404" >&2; exit 1; }
prefix=$3; spec=$(eval echo \\$$#); pkg=\${spec%@*}; version=\${spec##*@}
mkdir -p "$prefix/node_modules/$pkg" "$prefix/node_modules/.bin"
printf '{"name":"%s","version":"%s"}' "$pkg" "$version" > "$prefix/node_modules/$pkg/package.json"
`;

let dir: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "naruto-agents-install-"));
  await mkdir(join(dir, "bin"));
  await writeFile(join(dir, "bin", "npm"), FAKE_NPM(join(dir, "npm.log")));
  await chmod(join(dir, "bin", "npm"), 0o755);
  env = { PATH: `${join(dir, "bin")}:${process.env.PATH ?? ""}` };
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const npmCalls = async () => (await readFile(join(dir, "npm.log"), "utf8").catch(() => "")).split("\n").filter((l) => l !== "");

describe("the install cache of agents-check", () => {
  it("lives under XDG_CACHE_HOME when it is absolute, else under ~/.cache", () => {
    expect(agentsCacheRoot({ XDG_CACHE_HOME: "/c", HOME: "/h" })).toBe("/c/naruto/agents");
    expect(agentsCacheRoot({ XDG_CACHE_HOME: "relative", HOME: "/h" })).toBe("/h/.cache/naruto/agents");
    expect(installDir("/c/naruto/agents", "@openai/codex", "0.169.0")).toBe("/c/naruto/agents/@openai-codex@0.169.0");
  });

  it("installs a pinned version once, with --no-save into its own folder, and reuses it after", async () => {
    const root = join(dir, "cache");
    const first = await installCli({ root, pkg: "@scope/cli", version: "1.2.3", env });
    expect(first).toEqual({ dir: join(root, "@scope-cli@1.2.3"), bin: join(root, "@scope-cli@1.2.3", "node_modules", ".bin"), installed: true });
    expect(await npmCalls()).toEqual([expect.stringMatching(/^install --prefix \S+\.partial-[0-9a-f]+ --no-save .* @scope\/cli@1\.2\.3$/)]);
    const again = await installCli({ root, pkg: "@scope/cli", version: "1.2.3", env });
    expect(again.installed).toBe(false);
    expect(await npmCalls()).toHaveLength(1);
    // Another version is another folder.
    expect((await installCli({ root, pkg: "@scope/cli", version: "1.2.4", env })).installed).toBe(true);
    expect((await readdir(root)).sort()).toEqual(["@scope-cli@1.2.3", "@scope-cli@1.2.4"]);
  });

  it("leaves nothing half-installed when npm fails, and says what to check", async () => {
    const root = join(dir, "cache");
    const failing = installCli({ root, pkg: "@scope/cli", version: "9.9.9", env: { ...env, FAKE_NPM_FAIL: "1" } });
    await expect(failing).rejects.toThrow(InstallError);
    await expect(failing).rejects.toThrow(/npm could not install @scope\/cli@9\.9\.9 \(npm error code E404\); check that the npm registry is reachable/);
    expect(await readdir(root)).toEqual([]);
  });
});
