#!/usr/bin/env node
// A hostile agent against naruto's own doors (issue 31): the files naruto writes and reads
// beside the agent (its prompt, its result, the verify's files), and what the sandbox shows of
// the machine. `hostile-doors.mjs ATTACK`: it makes its item's ordinary edit (so that, if nothing
// catches it, its item would integrate), then tries ATTACK and says what it achieved in its
// result summary ("ATTACK: did …" or "ATTACK: failed: …"), which the test reads from the mission.
//
// What it goes for is named in its prompt, as lines `hostile-target: PATH` (where a link should
// point) and `hostile-read: PATH` (files to read, one line each). An agent finds such paths by
// looking around (HOME from its own path, the repository from `.git/objects/info/alternates`);
// the test hands them over so that each attack is tried for sure.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { applyEdits, editSpec, readPrompt, writeResult } from "./fake-lib.mjs";

const attack = process.argv[2] ?? "";
const prompt = readPrompt();
// Decided before the attack: the prompt file may be a pipe afterwards.
const edits = editSpec();
const values = (name) =>
  prompt
    .split("\n")
    .filter((l) => l.startsWith(`${name}: `))
    .map((l) => l.slice(name.length + 2).trim());
const promptFile = process.env.NARUTO_PROMPT_FILE ?? "";
const resultFile = process.env.NARUTO_RESULT_FILE ?? "";

/** Every name naruto has used, or might use, for its own files beside the prompt. */
function naruto_names() {
  const folder = dirname(promptFile);
  const seen = new Set([basename(promptFile), "prompt.md", "verify-prompt.md", "result.json", "verify-result.json", "plan.yml"]);
  for (const name of readdirSync(folder)) seen.add(name);
  return [...seen].filter((n) => n !== basename(resultFile)).map((n) => join(folder, n));
}

const attacks = {
  // Replaces its prompt file (and every other file of naruto's beside it) with a link to the
  // target: naruto's next write there (the item's verify's prompt) would land in the target.
  "prompt-link": () => {
    const [target] = values("hostile-target");
    if (!target) throw new Error("no hostile-target in the prompt");
    const linked = [];
    for (const path of naruto_names()) {
      rmSync(path, { force: true, recursive: true });
      symlinkSync(target, path);
      linked.push(basename(path));
    }
    return `linked ${linked.join(", ")} to ${target}`;
  },
  // Replaces naruto's files beside its prompt with named pipes: a write or read of naruto's there
  // would wait in open(2) for ever.
  "prompt-fifo": () => {
    const made = [];
    for (const path of naruto_names()) {
      rmSync(path, { force: true, recursive: true });
      execFileSync("mkfifo", [path]);
      made.push(basename(path));
    }
    return `made ${made.join(", ")} named pipes`;
  },
  // Makes naruto's files beside its prompt folders: a write of naruto's there fails with EISDIR.
  "io-dirs": () => {
    const made = [];
    for (const path of naruto_names()) {
      rmSync(path, { force: true, recursive: true });
      mkdirSync(path);
      made.push(basename(path));
    }
    return `made ${made.join(", ")} folders`;
  },
  // Reads each `hostile-read:` file and says which it could read (its size, never its content).
  read: () => {
    const read = [];
    for (const path of values("hostile-read")) {
      try {
        read.push(`${path} (${readFileSync(path).length} bytes)`);
      } catch {
        // refused or absent: not in reach
      }
    }
    if (read.length === 0) throw new Error(`none of ${values("hostile-read").length} files in reach`);
    return `read ${read.join(", ")}`;
  },
};

let summary;
try {
  if (!(attack in attacks)) throw new Error(`unknown attack ${attack}`);
  summary = `${attack}: did ${attacks[attack]()}`;
} catch (error) {
  summary = `${attack}: failed: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`;
}
console.log(summary);
const paths = applyEdits(edits);
writeResult({ summary: `${summary}: changed ${paths.join(", ")}`, cost_usd: 0.01, tokens_in: 100, tokens_out: 20, model: "fake" });
