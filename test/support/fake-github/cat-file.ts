/**
 * One long-running `git cat-file --batch-command` per repository: reading an object or
 * resolving a name costs a line on a pipe instead of a new process. Spawning git for every
 * read made the fake too slow for tests where 50 clients race on one ref. Names are resolved
 * afresh on every command, so refs moved by pushes or `update-ref` are seen at once.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";

export interface ObjectInfo {
  readonly sha: string;
  readonly type: string;
  readonly size: number;
}

export interface ObjectWithContent extends ObjectInfo {
  readonly content: Buffer;
}

export interface CatFile {
  /** The object `name` (a sha, a ref, `rev^{commit}`, `rev:path`) names, or null. */
  info(name: string): Promise<ObjectInfo | null>;
  contents(name: string): Promise<ObjectWithContent | null>;
  close(): void;
}

interface Pending {
  readonly withContent: boolean;
  resolve(value: ObjectWithContent | ObjectInfo | null): void;
  reject(error: Error): void;
}

export function startCatFile(dir: string, env: Readonly<Record<string, string>>): CatFile {
  let child: ChildProcessWithoutNullStreams | null = null;
  let buffer: Buffer = Buffer.alloc(0);
  const pending: Pending[] = [];

  /** Answers the oldest command whenever its whole answer has arrived. */
  function drain(): void {
    for (;;) {
      const next = pending[0];
      const newline = buffer.indexOf(10);
      if (next === undefined || newline === -1) return;
      const header = buffer.subarray(0, newline).toString("utf8");
      if (header.endsWith(" missing") || header.endsWith(" ambiguous")) {
        buffer = buffer.subarray(newline + 1);
        pending.shift();
        next.resolve(null);
        continue;
      }
      const [sha = "", type = "", size = "0"] = header.split(" ");
      const info = { sha, type, size: Number(size) };
      if (!next.withContent) {
        buffer = buffer.subarray(newline + 1);
        pending.shift();
        next.resolve(info);
        continue;
      }
      const end = newline + 1 + info.size;
      if (buffer.length < end + 1) return;
      const content = Buffer.from(buffer.subarray(newline + 1, end));
      buffer = buffer.subarray(end + 1);
      pending.shift();
      next.resolve({ ...info, content });
    }
  }

  function failAll(error: Error): void {
    child = null;
    buffer = Buffer.alloc(0);
    for (const p of pending.splice(0)) p.reject(error);
  }

  function running(): ChildProcessWithoutNullStreams {
    if (child !== null) return child;
    const started = spawn("git", ["cat-file", "--batch-command"], { cwd: dir, env: { ...env }, stdio: ["pipe", "pipe", "pipe"] });
    started.stdout.on("data", (chunk: Buffer) => {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
      drain();
    });
    started.stderr.resume();
    started.stdin.on("error", () => {
      // A dying process closes its stdin; "close" below fails what was waiting.
    });
    started.on("close", () => {
      if (child === started) failAll(new Error(`git cat-file --batch-command in ${dir} exited`));
    });
    child = started;
    return started;
  }

  function ask(command: "info" | "contents", name: string): Promise<ObjectWithContent | ObjectInfo | null> {
    // The protocol is line-based: a name with a line break (or nothing at all) cannot be asked.
    if (name === "" || /[\n\r\0]/.test(name)) return Promise.resolve(null);
    return new Promise((resolve, reject) => {
      pending.push({ withContent: command === "contents", resolve, reject });
      running().stdin.write(`${command} ${name}\n`);
    });
  }

  return {
    info: (name) => ask("info", name),
    contents: (name) => ask("contents", name) as Promise<ObjectWithContent | null>,
    close: () => {
      const running = child;
      child = null;
      running?.stdin.end();
      running?.kill();
    },
  };
}
