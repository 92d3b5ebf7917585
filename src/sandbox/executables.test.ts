/**
 * What the sandbox shows of a program (executables.ts), in a HOME of the test's own laid out as
 * installers lay it out: the program and what it loads, never HOME, `~/.local`, `~/bin` or
 * naruto's own folders; a program that cannot be shown otherwise is refused with the `read:` to give.
 */
import { chmod, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { executableMounts, ProgramNotShownError, whichProgram, type ProgramViewOptions } from "./executables.ts";

let home = "";
beforeEach(async () => {
  home = await realpath(await mkdtemp(join(tmpdir(), "naruto-home-")));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

/** Writes files under HOME (`path → content`; a `link:` content makes a symlink), executable where asked. */
async function layout(files: Record<string, string>, executable: readonly string[] = []): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const full = join(home, path);
    await mkdir(dirname(full), { recursive: true });
    if (content.startsWith("link:")) await symlink(content.slice(5), full);
    else await writeFile(full, content);
    if (executable.includes(path)) await chmod(full, 0o755);
  }
}

const options = (path: string, extra: Partial<ProgramViewOptions> = {}): ProgramViewOptions => ({
  path: `${path}:/usr/bin:/bin`,
  home,
  hidden: [join(home, ".cache", "naruto")],
  ...extra,
});
const h = (p: string) => join(home, p);
const pkg = (name: string, deps: Record<string, Record<string, string>> = {}) => JSON.stringify({ name, version: "1.0.0", ...deps });

describe("executableMounts", () => {
  it("shows a program copied into ~/bin as that file alone, not ~/bin and never HOME", async () => {
    await layout({ "bin/claude": "#!/bin/sh\necho claude\n", ".ssh/id_ed25519": "key" }, ["bin/claude"]);
    expect(await executableMounts(["claude"], options(h("bin")))).toEqual({ readOnly: [h("bin/claude")], links: [] });
  });

  it("shows an npm package installed with the prefix in HOME (~/bin/claude → ~/lib/node_modules/…) as the package, with its name as a link", async () => {
    const root = "lib/node_modules/@anthropic-ai/claude-code";
    await layout(
      { [`${root}/package.json`]: pkg("@anthropic-ai/claude-code"), [`${root}/cli.js`]: "#!/usr/bin/env node\n", "bin/claude": `link:../${root}/cli.js` },
      [`${root}/cli.js`],
    );
    expect(await executableMounts(["claude"], options(h("bin")))).toEqual({
      readOnly: [h(root)],
      links: [{ path: h("bin/claude"), target: h(`${root}/cli.js`) }],
    });
  });

  it("shows a global npm install as the package, its dependencies nested in it, and the Node.js prefix of nvm", async () => {
    const prefix = ".nvm/versions/node/v20.20.0";
    const root = `${prefix}/lib/node_modules/@openai/codex`;
    await layout(
      {
        [`${root}/package.json`]: pkg("@openai/codex", {
          optionalDependencies: {
            "@openai/codex-linux-x64": "npm:@openai/codex@1.0.0-linux-x64",
            "@openai/codex-darwin-arm64": "npm:@openai/codex@1.0.0-darwin-arm64",
          },
        }),
        [`${root}/bin/codex.js`]: "#!/usr/bin/env node\n",
        [`${root}/node_modules/@openai/codex-linux-x64/package.json`]: pkg("@openai/codex"),
        [`${prefix}/bin/codex`]: "link:../lib/node_modules/@openai/codex/bin/codex.js",
        [`${prefix}/bin/node`]: "\x7fELF",
        [`${prefix}/lib/node_modules/npm/package.json`]: pkg("npm"),
      },
      [`${root}/bin/codex.js`, `${prefix}/bin/node`],
    );
    expect(await executableMounts(["codex", "node"], options(h(`${prefix}/bin`)))).toEqual({
      readOnly: [h(prefix)],
      links: [{ path: h(`${prefix}/bin/codex`), target: h(`${root}/bin/codex.js`) }],
    });
    expect((await executableMounts(["codex"], options(h(`${prefix}/bin`)))).readOnly).toEqual([h(root)]);
  });

  it("shows Codex installed in a project's node_modules with its hoisted platform package beside it, not the whole node_modules", async () => {
    const modules = "work/app/node_modules";
    await layout(
      {
        [`${modules}/@openai/codex/package.json`]: pkg("@openai/codex", {
          optionalDependencies: {
            "@openai/codex-linux-x64": "npm:@openai/codex@1.0.0-linux-x64",
            "@openai/codex-darwin-arm64": "npm:@openai/codex@1.0.0-darwin-arm64",
          },
        }),
        [`${modules}/@openai/codex/bin/codex.js`]: "#!/usr/bin/env node\n",
        [`${modules}/@openai/codex-linux-x64/package.json`]: pkg("@openai/codex"),
        [`${modules}/@openai/codex-linux-x64/vendor/codex`]: "\x7fELF",
        [`${modules}/left-pad/package.json`]: pkg("left-pad"),
        [`${modules}/.bin/codex`]: "link:../@openai/codex/bin/codex.js",
      },
      [`${modules}/@openai/codex/bin/codex.js`],
    );
    const view = await executableMounts(["codex"], options(h(`${modules}/.bin`)));
    expect([...view.readOnly].sort()).toEqual([h(`${modules}/@openai/codex`), h(`${modules}/@openai/codex-linux-x64`)]);
    expect(view.links).toEqual([{ path: h(`${modules}/.bin/codex`), target: h(`${modules}/@openai/codex/bin/codex.js`) }]);
  });

  it("shows aider installed with pip --user (~/.local/bin/aider) as the script and the user's site-packages, never ~/.local", async () => {
    await layout(
      {
        ".local/bin/aider": "#!/usr/bin/python3\nfrom aider.main import main\n",
        ".local/lib/python3.11/site-packages/aider/__init__.py": "",
        ".local/share/keyrings/login.keyring": "secret",
      },
      [".local/bin/aider"],
    );
    expect(await executableMounts(["aider"], options(h(".local/bin")))).toEqual({
      readOnly: [h(".local/bin/aider"), h(".local/lib/python3.11/site-packages")],
      links: [],
    });
  });

  it("shows aider installed by aider-install (a uv tool: ~/.local/bin/aider → a virtual environment) as that environment and its Python", async () => {
    const venv = ".local/share/uv/tools/aider-chat";
    const python = ".local/share/uv/python/cpython-3.12.9-linux-x86_64-gnu";
    await layout(
      {
        [`${python}/bin/python3.12`]: "\x7fELF",
        [`${venv}/pyvenv.cfg`]: `home = ${h(`${python}/bin`)}\nversion_info = 3.12.9\n`,
        [`${venv}/bin/python`]: `link:${h(`${python}/bin/python3.12`)}`,
        [`${venv}/bin/aider`]: `#!${h(`${venv}/bin/python`)}\n`,
        ".local/bin/aider": `link:${h(`${venv}/bin/aider`)}`,
      },
      [`${venv}/bin/aider`, `${python}/bin/python3.12`],
    );
    expect(await executableMounts(["aider"], options(h(".local/bin")))).toEqual({
      readOnly: [h(venv), h(python)],
      links: [{ path: h(".local/bin/aider"), target: h(`${venv}/bin/aider`) }],
    });
  });

  it("refuses a program whose environment is HOME itself, naming the read: that would show it", async () => {
    await layout({ "pyvenv.cfg": "home = /usr/bin\n", "bin/aider": "#!/usr/bin/python3\n" }, ["bin/aider"]);
    const refused = executableMounts(["aider"], options(h("bin")));
    await expect(refused).rejects.toThrow(ProgramNotShownError);
    await expect(refused).rejects.toMatchObject({
      program: "aider",
      folder: home,
      why: "your home folder",
      read: [h("bin")],
      message: expect.stringContaining(`read: [${h("bin")}]`),
    });
  });

  it("refuses a program installed inside naruto's own folders", async () => {
    await layout({ ".cache/naruto/tools/agent": "#!/bin/sh\n" }, [".cache/naruto/tools/agent"]);
    await expect(executableMounts([h(".cache/naruto/tools/agent")], options(h("bin")))).rejects.toMatchObject({ name: "ProgramNotShownError", read: [] });
  });

  it("adds nothing for a program of the system or one that is not installed", async () => {
    expect(await executableMounts(["sh", "no-such-program-here"], options("/nonexistent"))).toEqual({ readOnly: [], links: [] });
  });
});

describe("whichProgram", () => {
  it("finds an executable file on PATH, never a folder or a relative path", async () => {
    await layout({ "a/tool/x": "", "b/tool": "#!/bin/sh\n" }, ["b/tool"]);
    await chmod(h("a/tool"), 0o755);
    expect(await whichProgram("tool", `${h("a")}:${h("b")}`)).toBe(h("b/tool"));
    expect(await whichProgram("./tool", h("b"))).toBeNull();
  });
});
