#!/usr/bin/env node
/**
 * naruto's demo agent: deterministic, no network, no model. It carries out the instructions
 * written in its work item's prompt, so a demo plan can say exactly what each agent does.
 *
 * It reads the "## Your work item" section of $NARUTO_PROMPT_FILE (the whole file when the
 * section is not there). A line is an instruction when it matches one of these forms exactly;
 * every other line is prose and ignored:
 *
 *   create <path> <<WORD          the following lines, up to a line that is exactly WORD,
 *                                 become the file (created or replaced; directories made)
 *   create <path> "text"          the file's content is the JSON string (\n for newlines)
 *   append <path> <<WORD          add the lines to the end of the file (created if missing)
 *   append <path> "text"          add the JSON string to the end of the file
 *   replace <path> "old" => "new" replace every occurrence; fails when there is none
 *   delete <path>                 delete the file; fails when it does not exist
 *   sleep <n>ms | sleep <n>s      wait, to make parallel work visible in a demo
 *   fail-on-attempt <n> "why"     fail (exit 1) when $NARUTO_ATTEMPT is n, to show a retry
 *
 * Paths are relative to the work tree and may not leave it. The agent writes a JSON summary to
 * $NARUTO_RESULT_FILE. Exit codes: 0 done, 1 an instruction failed, 2 an instruction is invalid.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, posix } from "node:path";

const STRING = String.raw`"(?:[^"\\]|\\.)*"`;
const FORMS = {
  write: new RegExp(String.raw`^(create|append) (\S+) (?:<<([A-Za-z_][A-Za-z0-9_]*)|(${STRING}))\s*$`),
  replace: new RegExp(String.raw`^replace (\S+) (${STRING}) => (${STRING})\s*$`),
  delete: /^delete (\S+)\s*$/,
  sleep: /^sleep (\d+)(ms|s)\s*$/,
  fail: new RegExp(String.raw`^fail-on-attempt (\d+)(?: (${STRING}))?\s*$`),
};

class InstructionError extends Error {
  constructor(line, message, code) {
    super(`line ${line}: ${message}`);
    this.code = code;
  }
}

/** The work item's section of a prompt made by buildPrompt (src/agent/prompt.ts). */
function workItemSection(prompt) {
  const lines = prompt.split("\n");
  const start = lines.indexOf("## Your work item");
  if (start < 0) return { lines, offset: 0 };
  const end = lines.indexOf("## Paths you may change", start);
  return { lines: lines.slice(start + 1, end < 0 ? undefined : end), offset: start + 1 };
}

function parse(prompt) {
  const { lines, offset } = workItemSection(prompt);
  const steps = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const at = offset + i + 1;
    let m;
    if ((m = FORMS.write.exec(line))) {
      let text;
      if (m[3] !== undefined) {
        const close = lines.indexOf(m[3], i + 1);
        if (close < 0) throw new InstructionError(at, `no line "${m[3]}" ends the text started here`, 2);
        const body = lines.slice(i + 1, close);
        text = body.length === 0 ? "" : `${body.join("\n")}\n`;
        i = close;
      } else text = jsonString(m[4], at);
      steps.push({ at, op: m[1], path: checkPath(m[2], at), text });
    } else if ((m = FORMS.replace.exec(line))) {
      steps.push({ at, op: "replace", path: checkPath(m[1], at), old: jsonString(m[2], at), text: jsonString(m[3], at) });
    } else if ((m = FORMS.delete.exec(line))) {
      steps.push({ at, op: "delete", path: checkPath(m[1], at) });
    } else if ((m = FORMS.sleep.exec(line))) {
      steps.push({ at, op: "sleep", ms: Number(m[1]) * (m[2] === "s" ? 1000 : 1) });
    } else if ((m = FORMS.fail.exec(line))) {
      steps.push({ at, op: "fail", attempt: Number(m[1]), why: m[2] === undefined ? "told to fail" : jsonString(m[2], at) });
    }
  }
  return steps;
}

function jsonString(text, at) {
  try {
    return JSON.parse(text);
  } catch {
    throw new InstructionError(at, `${text} is not a valid JSON string`, 2);
  }
}

function checkPath(path, at) {
  const clean = posix.normalize(path);
  if (path.startsWith("/") || clean === ".." || clean.startsWith("../") || /(^|\/)\.git(\/|$)/i.test(clean)) {
    throw new InstructionError(at, `${path} is outside the work tree`, 2);
  }
  return clean;
}

async function run(step, attempt) {
  switch (step.op) {
    case "create":
      mkdirSync(dirname(step.path), { recursive: true });
      writeFileSync(step.path, step.text);
      return `created ${step.path}`;
    case "append":
      mkdirSync(dirname(step.path), { recursive: true });
      appendFileSync(step.path, step.text);
      return `appended to ${step.path}`;
    case "replace": {
      const before = existsSync(step.path) ? readFileSync(step.path, "utf8") : null;
      if (before === null) throw new InstructionError(step.at, `${step.path} does not exist`, 1);
      const count = step.old === "" ? 0 : before.split(step.old).length - 1;
      if (count === 0) throw new InstructionError(step.at, `${JSON.stringify(step.old)} is not in ${step.path}`, 1);
      writeFileSync(
        step.path,
        before.replaceAll(step.old, () => step.text),
      );
      return `replaced ${count} occurrence${count === 1 ? "" : "s"} in ${step.path}`;
    }
    case "delete":
      if (!existsSync(step.path)) throw new InstructionError(step.at, `${step.path} does not exist`, 1);
      rmSync(step.path);
      return `deleted ${step.path}`;
    case "sleep":
      await new Promise((resolve) => setTimeout(resolve, step.ms));
      return `slept ${step.ms}ms`;
    case "fail":
      if (step.attempt === attempt) throw new InstructionError(step.at, `${step.why} (attempt ${attempt})`, 1);
      return `did not fail on attempt ${attempt}`;
  }
}

function report(summary) {
  const file = process.env.NARUTO_RESULT_FILE;
  if (file) writeFileSync(file, JSON.stringify({ summary, cost_usd: 0, tokens_in: 0, tokens_out: 0, model: "naruto-demo" }));
}

const done = [];
try {
  const prompt = process.env.NARUTO_PROMPT_FILE ? readFileSync(process.env.NARUTO_PROMPT_FILE, "utf8") : "";
  const steps = parse(prompt);
  for (const step of steps) {
    const what = await run(step, Number(process.env.NARUTO_ATTEMPT ?? "1"));
    console.log(`demo-agent: ${what}`);
    done.push(what);
  }
  report(done.length === 0 ? "no instructions found; nothing changed" : done.join("; "));
} catch (error) {
  // A file system error (a path that is a directory, say) fails the instruction like any other.
  const message = error instanceof Error ? error.message : String(error);
  console.error(`demo-agent: ${message}`);
  report(`failed: ${message}${done.length > 0 ? ` (after: ${done.join("; ")})` : ""}`);
  process.exitCode = error instanceof InstructionError ? error.code : 1;
}
