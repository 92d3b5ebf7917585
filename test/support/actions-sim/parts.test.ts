/** The simulator's pure parts: matrix expansion, file commands, concurrency groups, permissions, artifacts. */
import { lstat, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { S_IFLNK, writeZip } from "../zip.ts";
import { extractArtifact, zipForUpload } from "./artifacts.ts";
import { createConcurrencyGroups, MAX_PENDING } from "./concurrency.ts";
import { FileCommandError, mask, parseKeyValueFile, readWorkflowCommands } from "./file-commands.ts";
import { expandMatrix, legName, MatrixError } from "./matrix.ts";
import { tokenPermissions } from "./permissions.ts";
import { standardRelease } from "./step-runner.ts";

describe("matrix", () => {
  it.each<[string, unknown, unknown]>([
    [
      "include only",
      {
        include: [
          { item: "a", attempt: 1 },
          { item: "b", attempt: 2 },
        ],
      },
      [
        { item: "a", attempt: 1 },
        { item: "b", attempt: 2 },
      ],
    ],
    [
      "a cross product minus exclude",
      { os: ["x", "y"], n: [1, 2], exclude: [{ os: "y", n: 2 }] },
      [
        { os: "x", n: 1 },
        { os: "x", n: 2 },
        { os: "y", n: 1 },
      ],
    ],
    [
      "include extending matching legs and adding one",
      { os: ["x", "y"], include: [{ os: "x", extra: true }, { os: "z" }] },
      [{ os: "x", extra: true }, { os: "y" }, { os: "z" }],
    ],
  ])("%s", (_, matrix, expected) => {
    expect(expandMatrix(matrix)).toEqual(expected);
  });

  it("refuses an empty include and more than 256 legs", () => {
    expect(() => expandMatrix({ include: [] })).toThrow(MatrixError);
    expect(() => expandMatrix({ include: Array.from({ length: 257 }, (_, i) => ({ i })) })).toThrow(/at most 256/);
  });

  it("names legs as GitHub does", () => {
    expect(legName("work", { item: "a", attempt: 1 })).toBe("work (a, 1)");
    expect(legName("work", null)).toBe("work");
  });
});

describe("file commands", () => {
  it("reads name=value and heredoc forms, later values winning", () => {
    const text = "a=1\nb<<ghadelimiter_x\nline 1\nline=2\nghadelimiter_x\na=3\n";
    expect(parseKeyValueFile(text, "GITHUB_OUTPUT")).toEqual({ a: "3", b: "line 1\nline=2" });
  });

  it.each(["no-equals-sign", "x<<EOF\nnever closed"])("refuses %j", (text) => {
    expect(() => parseKeyValueFile(text, "GITHUB_OUTPUT")).toThrow(FileCommandError);
  });

  it("takes masks and annotations from the output and masks logs", () => {
    const commands = readWorkflowCommands("::add-mask::s3cret-value\n::error file=a::it%0Abroke\nplain\n");
    expect(commands.masks).toEqual(["s3cret-value"]);
    expect(commands.annotations).toEqual([{ level: "error", message: "it\nbroke" }]);
    expect(mask("token s3cret-value here", commands.masks)).toBe("token *** here");
  });

  // As actions/runner reads a step's output (ActionCommandManager, ActionCommand.TryParseV2/TryParse).
  it.each<[string, string, Partial<ReturnType<typeof readWorkflowCommands>>]>([
    ["a command after a lone \\r", "progress 50%\r::add-mask::hidden-value\n", { masks: ["hidden-value"] }],
    ["a command after \\r\\n", "a\r\n::error::after crlf\n", { annotations: [{ level: "error", message: "after crlf" }] }],
    ["a command after leading whitespace", "   \t::warning::indented\n", { annotations: [{ level: "warning", message: "indented" }] }],
    ["a command name in upper case", "::ADD-MASK::upper-value\n", { masks: ["upper-value"] }],
    ["the old form anywhere in a line", "text before ##[add-mask]old-form-value\n", { masks: ["old-form-value"] }],
    ["set-output", "::set-output name=answer::forty%0Atwo\n", { outputs: { answer: "forty\ntwo" } }],
    ["nothing between stop-commands and its token", "::stop-commands::tok\n::add-mask::ignored\n::tok::\n::add-mask::after\n", { masks: ["after"] }],
    ["a disabled set-env, which fails the step", "::set-env name=X::y\n", { failed: true }],
    ["nothing from a line that does not start with the command", "  | ::add-mask::quoted\n", { masks: [], annotations: [], outputs: {}, commands: [] }],
  ])("reads %s", (_, output, expected) => {
    expect(readWorkflowCommands(output)).toMatchObject(expected);
  });
});

describe("concurrency groups", () => {
  const member = () => ({
    cancelled: false,
    cancel() {
      this.cancelled = true;
    },
  });

  it("queue: max runs every member in order", async () => {
    const groups = createConcurrencyGroups();
    const [a, b, c] = [member(), member(), member()];
    const policy = { queueMax: true, cancelInProgress: false };
    expect(await groups.acquire("g", policy, a)).toBe("admitted");
    const order: string[] = [];
    const pb = groups.acquire("g", policy, b).then((ok) => order.push(`b:${ok}`));
    const pc = groups.acquire("g", policy, c).then((ok) => order.push(`c:${ok}`));
    groups.release("g", a);
    await pb;
    groups.release("g", b);
    await pc;
    expect(order).toEqual(["b:admitted", "c:admitted"]);
  });

  it("queue: max holds 100 pending members: the 101st is cancelled, the oldest keep their places (GitHub's docs)", async () => {
    const groups = createConcurrencyGroups();
    const policy = { queueMax: true, cancelInProgress: false };
    const running = member();
    expect(await groups.acquire("naruto-m-1", policy, running)).toBe("admitted");
    const waiting = Array.from({ length: MAX_PENDING }, () => member());
    const admitted: number[] = [];
    const pending = waiting.map((m, i) => groups.acquire("naruto-m-1", policy, m).then((a) => a === "admitted" && admitted.push(i)));
    expect(MAX_PENDING).toBe(100);
    expect(groups.pending("naruto-m-1")).toBe(100);
    expect(await groups.acquire("Naruto-M-1", policy, member())).toBe("queue-full");
    expect(groups.pending("naruto-m-1")).toBe(100);
    // Below the cap again, a newcomer waits.
    groups.release("naruto-m-1", running);
    await pending[0];
    expect(admitted).toEqual([0]);
    const late = groups.acquire("naruto-m-1", policy, member());
    expect(groups.pending("naruto-m-1")).toBe(100);
    for (let i = 0; i < MAX_PENDING; i++) {
      groups.release("naruto-m-1", waiting[i] as (typeof waiting)[number]);
      await pending[i];
    }
    expect(admitted).toEqual(waiting.map((_, i) => i));
    expect(await late).toBe("admitted");
  });

  it("without queue: max a newer pending member cancels the older; cancel-in-progress cancels the running one", async () => {
    const groups = createConcurrencyGroups();
    const [a, b, c] = [member(), member(), member()];
    await groups.acquire("g", { queueMax: false, cancelInProgress: false }, a);
    const pb = groups.acquire("g", { queueMax: false, cancelInProgress: false }, b);
    const pc = groups.acquire("g", { queueMax: false, cancelInProgress: true }, c);
    expect(await pb).toBe("replaced");
    expect(a.cancelled).toBe(true);
    groups.release("g", a);
    expect(await pc).toBe("admitted");
  });
});

describe("token permissions", () => {
  it.each<[string, Parameters<typeof tokenPermissions>[0], Record<string, string>]>([
    ["the job's block wins", { job: { contents: "read" }, workflow: {}, fallback: "permissive" }, { metadata: "read", contents: "read" }],
    ["`{}` grants nothing but metadata", { job: undefined, workflow: {}, fallback: "permissive" }, { metadata: "read" }],
    [
      "names are mapped, none and unmodelled scopes dropped",
      { job: { "pull-requests": "write", issues: "none", "id-token": "write" }, workflow: undefined, fallback: "restricted" },
      { metadata: "read", pull_requests: "write" },
    ],
    ["restricted default", { job: undefined, workflow: undefined, fallback: "restricted" }, { metadata: "read", contents: "read" }],
  ])("%s", (_, input, expected) => {
    expect(tokenPermissions(input)).toEqual(expected);
  });
});

describe("artifacts", () => {
  it("zip a folder's files as upload-artifact does: no hidden ones, nothing outside the job's folder", async () => {
    const root = await realpath(await mkdtemp(join(tmpdir(), "sim-artifacts-")));
    try {
      const job = join(root, "job");
      await mkdir(join(job, "out", "sub"), { recursive: true });
      await writeFile(join(job, "out", "a.txt"), "a");
      await writeFile(join(job, "out", "sub", "b.txt"), "b");
      await writeFile(join(job, "out", ".secret"), "hidden");
      await writeFile(join(root, "host.txt"), "the host's");
      await symlink(join(root, "host.txt"), join(job, "out", "host-link"));
      const packed = await zipForUpload({ paths: [join(job, "out")], includeHidden: false, within: job });
      expect(packed?.files).toEqual(["a.txt", "sub/b.txt"]);
      expect(await extractArtifact(packed?.zip ?? Buffer.alloc(0), join(root, "x"))).toEqual(["a.txt", join("sub", "b.txt")]);
      expect(await readFile(join(root, "x", "sub", "b.txt"), "utf8")).toBe("b");
      expect(await zipForUpload({ paths: [join(job, "none")], includeHidden: false, within: job })).toBeNull();
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it("extract as @actions/artifact does: a path out of the folder fails, a link becomes a plain file", async () => {
    const root = await realpath(await mkdtemp(join(tmpdir(), "sim-artifacts-")));
    try {
      const escaping = writeZip([
        { name: "ok.txt", data: "ok" },
        { name: "../escaped.txt", data: "out" },
      ]);
      await expect(extractArtifact(escaping, join(root, "x"))).rejects.toThrow(/Malformed extraction path/);
      await expect(readFile(join(root, "escaped.txt"), "utf8")).rejects.toThrow();
      const link = writeZip([{ name: "result.json", data: "/etc/passwd", mode: S_IFLNK | 0o777 }]);
      await extractArtifact(link, join(root, "y"));
      expect((await lstat(join(root, "y", "result.json"))).isFile()).toBe(true);
      expect(await readFile(join(root, "y", "result.json"), "utf8")).toBe("/etc/passwd");
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe("standard actions", () => {
  it("are imitated at the pinned releases only, whose runtime the pin list gives", () => {
    expect(standardRelease("actions/checkout@fbc6f3992d24b796d5a048ff273f7fcc4a7b6c09")).toMatchObject({ version: "v5.1.0", using: "node24" });
    expect(standardRelease("actions/upload-artifact@v6")).toMatchObject({ version: "v6.0.0", using: "node24" });
    expect(standardRelease("actions/checkout@11d5960a326750d5838078e36cf38b85af677262")).toEqual(
      expect.stringContaining("only at the releases of scripts/action-pins.json"),
    );
    expect(standardRelease("actions/download-artifact@v4")).toEqual(expect.stringContaining("not @v4"));
  });
});
