#!/usr/bin/env node
// A hostile agent against the gate and the object store (issue 31, parts 7 and 8):
// `hostile-gate.mjs ATTACK`. It makes its item's ordinary edit (so that, if nothing catches it,
// its item would integrate), then tries ATTACK inside its own write path or its own repository,
// and says what it did in its result summary ("ATTACK: did …" or "ATTACK: failed: …").
//
// - big-file: a file of random bytes (`hostile-size-mb: N`, default 80) larger than the limit;
//   the summary names its blob id, for the test to look for in the user's store.
// - sparse-file: a sparse file of `hostile-size-gib: N` GiB (default 3): nothing on disk, but
//   hashing it reads every byte.
// - special-files: a named pipe and a unix socket beside its edit, and a named pipe where git
//   opens a folder's `.gitignore` (git blocks on it).
// - collide: `README.md` and `readme.md`, and `é.txt` in NFC and in NFD, side by side.
// - objects: every object its repository can read (through the alternates naruto gave it),
//   searched for a line starting with `hostile-secret-prefix: …` of its prompt.
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { editAndReport, item, readPrompt, writes } from "./fake-lib.mjs";

const attack = process.argv[2] ?? "";
const value = (name) =>
  readPrompt()
    .split("\n")
    .find((l) => l.startsWith(`${name}: `))
    ?.slice(name.length + 2)
    .trim();
const folder = (writes[0] ?? `src/${item}/`).replace(/\/$/, "");
const git = (args, input) => execFileSync("git", args, { input, maxBuffer: 1 << 30, stdio: ["pipe", "pipe", "pipe"] });

const attacks = {
  "big-file": () => {
    const mb = Number(value("hostile-size-mb") ?? "80");
    mkdirSync(folder, { recursive: true });
    const path = join(folder, "big.bin");
    const hash = createHash("sha1").update(`blob ${mb * 1024 * 1024}\0`);
    const fd = openSync(path, "w");
    for (let i = 0; i < mb; i++) {
      const chunk = randomBytes(1024 * 1024);
      hash.update(chunk);
      writeSync(fd, chunk);
    }
    closeSync(fd);
    return `wrote ${path} (${mb} MiB, blob ${hash.digest("hex")})`;
  },
  "sparse-file": () => {
    const gib = Number(value("hostile-size-gib") ?? "3");
    mkdirSync(folder, { recursive: true });
    const path = join(folder, "sparse.bin");
    const fd = openSync(path, "w");
    // One byte at the end: the rest is a hole, nothing on disk.
    writeSync(fd, Buffer.from("x"), 0, 1, gib * 1024 ** 3 - 1);
    closeSync(fd);
    return `wrote ${path} (${gib} GiB, sparse)`;
  },
  "special-files": async () => {
    mkdirSync(folder, { recursive: true });
    execFileSync("mkfifo", [join(folder, "pipe")]);
    execFileSync("mkfifo", [join(folder, ".gitignore")]);
    const socket = join(folder, "socket");
    // Left listening: the process exits without closing it, so the socket file stays.
    await new Promise((resolve, reject) => createServer().on("error", reject).listen(socket, resolve));
    return `made ${folder}/pipe and ${folder}/.gitignore (named pipes) and ${socket} (a unix socket)`;
  },
  collide: () => {
    mkdirSync(folder, { recursive: true });
    const names = ["README.md", "readme.md", "\u00e9.txt", "e\u0301.txt"];
    for (const name of names) writeFileSync(join(folder, name), `${JSON.stringify(name)}\n`);
    return `wrote ${names.map((n) => JSON.stringify(n)).join(", ")} in ${folder}`;
  },
  objects: () => {
    const prefix = value("hostile-secret-prefix");
    if (!prefix) throw new Error("no hostile-secret-prefix in the prompt");
    const all = git(["cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)"]).toString("latin1").split("\n");
    const blobs = all.filter((l) => l.endsWith(" blob")).map((l) => l.split(" ")[0]);
    const text = git(["cat-file", "--batch"], `${blobs.join("\n")}\n`).toString("latin1");
    const found = new RegExp(`${prefix}[0-9a-f]+`).exec(text);
    if (!found) throw new Error(`no secret among the ${all.length - 1} objects its repository reads`);
    return `found ${found[0]} among the ${all.length - 1} objects its repository reads`;
  },
};

let summary;
try {
  summary = `${attack}: did ${await attacks[attack]()}`;
} catch (error) {
  summary = `${attack}: failed: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`;
}
editAndReport(summary);
// A socket left listening would keep the process alive.
process.exit(0);
