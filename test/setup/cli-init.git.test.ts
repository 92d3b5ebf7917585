/**
 * `naruto init` and `naruto upgrade` in real repositories: what they write, that a second init
 * changes nothing, that nothing of the user's is overwritten without --force, what is inferred
 * (the repository from origin, the default branch, the agent CLI on PATH), and the steps only a
 * person can do, each with its place.
 */
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { createTestRepo, type TestRepo } from "../support/git-repo.ts";
import { fakeCli } from "../local/cli-io.ts";

const WORKFLOW = ".github/workflows/naruto.yml";
const CONFIG = ".github/naruto.yml";
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0)) await step();
});

async function repo(origin = "git@github.com:acme/widgets.git"): Promise<TestRepo> {
  const r = await createTestRepo();
  cleanup.push(() => rm(r.dir, { recursive: true, force: true }));
  await r.run("remote", "add", "origin", origin);
  return r;
}

/** PATH with only the given programs (empty scripts) and the system's folders (git). */
async function pathWith(programs: string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "naruto-path-"));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  for (const program of programs) {
    await writeFile(join(dir, program), "#!/bin/sh\n");
    await chmod(join(dir, program), 0o755);
  }
  return [dir, "/usr/bin", "/bin"].join(":");
}

async function naruto(r: TestRepo, args: string[], path?: string) {
  const cli = fakeCli(r.dir);
  const io = path === undefined ? cli.io : { ...cli.io, env: { ...cli.io.env, PATH: path } };
  const code = await main(args, io);
  return { code, out: cli.stdout(), err: cli.stderr() };
}

const read = (r: TestRepo, path: string) => readFile(join(r.dir, path), "utf8");

describe("naruto init", () => {
  it("writes the workflow and the config, says what only a person can do, and a second run changes nothing", async () => {
    const r = await repo();
    const first = await naruto(r, ["init", "--agent", "codex"]);
    expect(first.err).toBe("");
    expect(first.code).toBe(0);
    expect(first.out).toContain(`wrote ${WORKFLOW} (naruto 0.1.0's template; Codex CLI in plan, work and review; without the App)`);
    expect(first.out).toContain(`wrote ${CONFIG}`);
    expect(first.out).toContain(
      "1. Add the repository secret CODEX_API_KEY (an OpenAI API key, from platform.openai.com): https://github.com/acme/widgets/settings/secrets/actions/new",
    );
    expect(first.out).toContain("or: gh secret set CODEX_API_KEY --repo acme/widgets");
    expect(first.out).toContain(
      '2. Tick "Allow GitHub Actions to create and approve pull requests" under Workflow permissions, and Save: https://github.com/acme/widgets/settings/actions',
    );
    expect(first.out).toMatch(/3\. Commit .* and push them to main/);
    const workflow = await read(r, WORKFLOW);
    const config = await read(r, CONFIG);
    expect(workflow).toContain("run: npm install -g @openai/codex@0.169.0");
    expect(config).toContain("default: { preset: codex }");

    const second = await naruto(r, ["init", "--agent", "codex"]);
    expect(second.code).toBe(0);
    expect(second.out).toContain(`${WORKFLOW} is already what init writes: unchanged`);
    expect(second.out).toContain(`${CONFIG} is already what init writes: unchanged`);
    expect(await read(r, WORKFLOW)).toBe(workflow);
    expect(await read(r, CONFIG)).toBe(config);
    expect(await r.run("status", "--porcelain")).toBe("?? .github/");
  });

  it("never overwrites a file that differs without --force; --dry-run shows the diff and writes nothing", async () => {
    const r = await repo();
    await r.write({ [CONFIG]: "version: 1\nagents:\n  default: { preset: gemini }\n" });
    const refused = await naruto(r, ["init", "--agent", "claude"]);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(`${CONFIG} already exists and differs from what init writes; left as it is`);
    expect(await read(r, CONFIG)).toBe("version: 1\nagents:\n  default: { preset: gemini }\n");
    expect(await read(r, WORKFLOW)).toContain("npm install -g @anthropic-ai/claude-code@");

    const dry = await naruto(r, ["init", "--agent", "gemini", "--dry-run", "--force"]);
    expect(dry.code).toBe(0);
    expect(dry.out).toContain(`--- a/${WORKFLOW}\n+++ b/${WORKFLOW}\n`);
    expect(dry.out).toContain(
      "-      - name: Install Claude Code\n-        run: npm install -g @anthropic-ai/claude-code@2.1.328\n+      - name: Install Gemini CLI\n+        run: npm install -g @google/gemini-cli@0.61.0\n",
    );
    expect(await read(r, WORKFLOW)).toContain("@anthropic-ai/claude-code");

    const forced = await naruto(r, ["init", "--agent", "gemini", "--force"]);
    expect(forced.code).toBe(0);
    expect(forced.out).toContain(`replaced ${WORKFLOW}`);
    expect(await read(r, WORKFLOW)).toContain("npm install -g @google/gemini-cli@0.61.0");
    expect(await read(r, CONFIG)).toContain("default: { preset: gemini }");
  });

  it("takes the agent CLI it finds on PATH when none is named", async () => {
    const r = await repo();
    const found = await naruto(r, ["init"], await pathWith(["gemini"]));
    expect(found.out).toContain("agent: Gemini CLI (`gemini` is on your PATH; --agent chooses another)");
    expect(await read(r, CONFIG)).toContain("default: { preset: gemini }");
    const none = await naruto(await repo(), ["init"], await pathWith([]));
    expect(none.out).toContain("agent: Claude Code (none of claude, codex, gemini, aider is on your PATH; --agent chooses another)");
  });

  it("sets up for the App: no comment trigger, no command or watch job, the App's install page and login", async () => {
    const r = await repo("https://github.com/acme/widgets");
    const { code, out } = await naruto(r, ["init", "--agent", "claude", "--app", "acme-naruto"]);
    expect(code).toBe(0);
    expect(out).toContain("Install your naruto App on this repository: https://github.com/apps/acme-naruto/installations/new");
    expect(out).toContain("Add the repository variable NARUTO_BOT_LOGIN = acme-naruto[bot]: https://github.com/acme/widgets/settings/variables/actions/new");
    const workflow = await read(r, WORKFLOW);
    expect(workflow).not.toMatch(/^ {2}issue_comment:|^ {2}command:|^ {2}watch:/m);
    expect(workflow).toContain("# naruto-template 0.1.0 (naruto init --agent claude --app)");
  });

  it("needs the command of --agent command, and writes it into the config", async () => {
    const r = await repo();
    const missing = await naruto(r, ["init", "--agent", "command"]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain("--agent command needs the command itself");
    const given = await naruto(r, ["init", "--agent", "command", "--command", "./scripts/agent.sh"]);
    expect(given.code).toBe(0);
    expect(await read(r, CONFIG)).toContain('command: "./scripts/agent.sh"');
    expect(given.out).not.toContain("Add the repository secret");
  });

  it("refuses outside a repository, and an unknown agent", async () => {
    const dir = await mkdtemp(join(tmpdir(), "naruto-norepo-"));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const cli = fakeCli(dir);
    expect(await main(["init"], cli.io)).toBe(2);
    expect(cli.stderr()).toContain("is not inside a git repository");
    const unknown = await naruto(await repo(), ["init", "--agent", "copilot"]);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain("--agent copilot: expected one of claude, codex, gemini, aider, command");
  });
});

describe("naruto upgrade", () => {
  it("brings the workflow to this version's template, keeps the blocks as the user left them, and says what changed", async () => {
    const r = await repo();
    await naruto(r, ["init", "--agent", "claude"]);
    const written = await read(r, WORKFLOW);
    const edited = written
      .replace("# naruto-template 0.1.0 (naruto init --agent claude)", "# naruto-template 0.0.9 (naruto init --agent claude)")
      .replace('    - cron: "*/15 * * * *"', '    - cron: "*/5 * * * *"')
      .replace(
        "          # Variables queue.verify needs (listed in queue.env of the config), never a GitHub token.\n",
        "          DATABASE_URL: ${{ secrets.DATABASE_URL }}\n",
      );
    await writeFile(join(r.dir, WORKFLOW), edited);
    const dry = await naruto(r, ["upgrade", "--dry-run"]);
    expect(dry.out).toContain('-    - cron: "*/5 * * * *"\n+    - cron: "*/15 * * * *"');
    expect(dry.out).toContain(`would bring ${WORKFLOW} from naruto 0.0.9's template to naruto 0.1.0's`);
    expect(await read(r, WORKFLOW)).toBe(edited);

    const done = await naruto(r, ["upgrade"]);
    expect(done.code).toBe(0);
    expect(done.out).toMatch(/kept as you left them: .*queue-env/);
    const upgraded = await read(r, WORKFLOW);
    expect(upgraded).toContain("DATABASE_URL: ${{ secrets.DATABASE_URL }}");
    expect(upgraded).toBe(
      written.replace(
        "          # Variables queue.verify needs (listed in queue.env of the config), never a GitHub token.\n",
        "          DATABASE_URL: ${{ secrets.DATABASE_URL }}\n",
      ),
    );
    expect((await naruto(r, ["upgrade"])).out).toContain("is already naruto 0.1.0's template: nothing to do");
  });

  it("refuses a file copied by hand without markers, and says what to do", async () => {
    const r = await repo();
    await mkdir(join(r.dir, ".github", "workflows"), { recursive: true });
    await writeFile(join(r.dir, WORKFLOW), "name: naruto\non: workflow_dispatch\njobs: {}\n");
    const { code, err } = await naruto(r, ["upgrade"]);
    expect(code).toBe(2);
    expect(err).toContain("has no naruto-template line");
    expect(err).toContain("`naruto init --dry-run --force`");
  });
});
