/**
 * What every sandbox adapter must do with a process (sandbox.ts), run against each adapter this
 * machine has: the unsandboxed one always, bubblewrap where it works. Liveness is checked on the
 * host's process table by a variable of each run's own, since a pid written inside bubblewrap's
 * PID namespace means nothing outside it.
 */
import { randomBytes } from "node:crypto";
import { readFile, realpath } from "node:fs/promises";
import { dirname } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { bareWorkDir, sandboxesHere } from "../../test/support/sandbox.ts";
import { fakeAgentCommand, fakeAgentPath } from "../../test/support/agents/index.ts";
import { shellQuote } from "../agent/index.ts";
import { processesWithEnv } from "./leftovers.ts";
import { createRunFiles } from "./run-files.ts";
import type { ProcessRun, Sandbox, SandboxRun } from "./sandbox.ts";

const NODE = shellQuote(process.execPath);
const AGENTS = dirname(fakeAgentPath("edit"));

let dirs: Awaited<ReturnType<typeof bareWorkDir>>[] = [];
afterEach(async () => {
  await Promise.all(dirs.map((d) => d.remove()));
  dirs = [];
});

/** Processes still running with this run's marker: none may outlive `run`. */
async function survivors(marker: string): Promise<number[]> {
  for (let waited = 0; waited < 5000; waited += 50) {
    if ((await processesWithEnv(`TEST_RUN=${marker}`)).length === 0) return [];
    await new Promise((r) => setTimeout(r, 50));
  }
  return processesWithEnv(`TEST_RUN=${marker}`);
}

for (const [name, sandbox] of await sandboxesHere()) {
  describe(`the ${name} sandbox`, () => {
    async function run(command: string, options: Partial<SandboxRun> = {}): Promise<ProcessRun & { marker: string; dir: string }> {
      const dir = await bareWorkDir();
      dirs.push(dir);
      const marker = randomBytes(6).toString("hex");
      const result = await (sandbox as Sandbox).run({
        command,
        workDir: dir,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", TEST_RUN: marker },
        network: true,
        readOnly: [AGENTS],
        timeoutMs: 60_000,
        killGraceMs: 300,
        ...options,
      });
      return { ...result, marker, dir: dir.path };
    }

    it("runs the command in the work directory, with its environment and a private HOME and TMPDIR", async () => {
      const r = await run(`pwd; echo "home=$HOME"; echo "tmp=$TMPDIR"; echo "run=$TEST_RUN"; echo x > "$TMPDIR/t" && echo tmp-ok; cat; echo stdin-closed`);
      const dir = dirs[0]!;
      expect(r.exitCode).toBe(0);
      const lines = r.output.split("\n");
      expect(lines[0]).toBe(await realpath(dir.path));
      expect(lines[1]).toBe(`home=${dir.home}`);
      expect(lines[2]).toMatch(name === "bwrap" ? /^tmp=\/tmp$/ : new RegExp(`^tmp=${dir.tmp}$`));
      expect(lines[3]).toBe(`run=${r.marker}`);
      expect(lines.slice(4)).toEqual(["tmp-ok", "stdin-closed", ""]);
    });

    it("reports a non-zero exit and a signal", async () => {
      expect(await run("echo out; echo err >&2; exit 3")).toMatchObject({ exitCode: 3, signal: null, timedOut: false, cancelled: false });
      const killed = await run("kill -KILL $$");
      expect(killed.exitCode === null ? killed.signal : `exit ${killed.exitCode}`).toMatch(/SIGKILL|exit 137/);
    });

    it("times out and stops everything the command started, a grandchild that ignores SIGTERM too", async () => {
      const r = await run(fakeAgentCommand("hang"), { timeoutMs: 1_500 });
      expect(r).toMatchObject({ timedOut: true });
      expect(r.output).toContain("grandchild ready");
      expect(await survivors(r.marker)).toEqual([]);
    });

    it("stops on cancel the same way", async () => {
      const cancel = new AbortController();
      setTimeout(() => cancel.abort(), 1_000);
      const r = await run(fakeAgentCommand("hang"), { signal: cancel.signal });
      expect(r).toMatchObject({ cancelled: true, timedOut: false });
      expect(await survivors(r.marker)).toEqual([]);
    });

    it("stops what the command left running in the background, in its group or in a session of its own", async () => {
      const r = await run(
        `(trap '' TERM; exec sleep 1000) >/dev/null 2>&1 & setsid sh -c 'exec sleep 1001' >/dev/null 2>&1 < /dev/null & sleep 0.3; echo started`,
      );
      expect(r.exitCode).toBe(0);
      expect(await survivors(r.marker)).toEqual([]);
    });

    it("stops a process that cleared its environment in a session of its own (setsid env -i)", async () => {
      const r = await run(`setsid env -i sh -c 'exec sleep 1002' >/dev/null 2>&1 < /dev/null & sleep 0.3; echo started`);
      expect(r.exitCode).toBe(0);
      // Its environment is gone, so it is looked for by its command line.
      for (let waited = 0; waited < 5000 && (await sleepers("1002")).length > 0; waited += 50) await new Promise((res) => setTimeout(res, 50));
      expect(await sleepers("1002")).toEqual([]);
      if (name === "none") expect(r.leftovers).toEqual([expect.objectContaining({ found: "working_directory" })]);
    });

    it("bounds the output, keeping its start and end, and streams every chunk", async () => {
      const chunks: Buffer[] = [];
      // Words, so that the cut goes between two (a word the cut goes through is cut with the middle:
      // it could be half of a secret, see src/sandbox/output-buffer.ts).
      const r = await run(`${NODE} -e 'process.stdout.write("START " + "word ".repeat(20000)); process.stderr.write("END")'`, {
        outputLimitBytes: 1000,
        onOutput: (c) => chunks.push(c),
      });
      expect(r).toMatchObject({ exitCode: 0, outputBytes: 100_009, outputTruncated: true });
      expect(r.output).toMatch(/^START (word ?)+\n\[naruto: 9\d{4} bytes of output cut\]\n\w* (word )*END$/);
      expect(Buffer.concat(chunks).length).toBe(100_009);
    });

    it("reports a command that cannot start", async () => {
      const dir = await bareWorkDir();
      dirs.push(dir);
      await dir.remove();
      const r = await sandbox.run({ command: "true", workDir: dir, env: { PATH: process.env.PATH ?? "" }, network: true, timeoutMs: 10_000 });
      expect(r.exitCode === 0 && r.startFailed === null).toBe(false);
    });

    it("lets the command write the files naruto made for it, and in the sandbox nothing else of naruto's io folder", async () => {
      const dir = await bareWorkDir();
      dirs.push(dir);
      const files = await createRunFiles(dir, { outputs: ["result"], prompt: () => "the prompt\n" });
      const out = files.outputs.result ?? "";
      const command = `echo '{"summary":"done"}' > "$OUT"; (echo x > "$IO/other") 2>/dev/null && echo wrote-io; (echo y > "$PROMPT") 2>/dev/null && echo wrote-prompt; (rm -f "$OUT" && ln -s /etc/passwd "$OUT") 2>/dev/null && echo replaced-result; true`;
      const r = await sandbox.run({
        command,
        workDir: dir,
        env: { PATH: process.env.PATH ?? "", OUT: out, IO: dir.io, PROMPT: files.prompt },
        outputs: [out],
        network: true,
        timeoutMs: 10_000,
      });
      expect(r.exitCode).toBe(0);
      if (name === "none") return;
      expect(r.output).toBe("");
      expect(JSON.parse(await readFile(out, "utf8"))).toEqual({ summary: "done" });
      expect(await readFile(files.prompt, "utf8")).toBe("the prompt\n");
    });
  });
}

/** Host processes running `sleep <n>`. */
async function sleepers(n: string): Promise<number[]> {
  const { readdir } = await import("node:fs/promises");
  const found: number[] = [];
  for (const pid of await readdir("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    const cmd = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
    const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
    if (cmd === `sleep\0${n}\0` && !/\) [ZX] /.test(stat)) found.push(Number(pid));
  }
  return found;
}
