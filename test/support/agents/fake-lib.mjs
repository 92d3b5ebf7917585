// Shared by the fake agents. Plain Node (no TypeScript) so that each fake starts fast.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

export const item = process.env.NARUTO_ITEM ?? "item";
export const attempt = Number(process.env.NARUTO_ATTEMPT ?? "1");
export const writes = (process.env.NARUTO_WRITES ?? "").split("\n").filter((w) => w !== "");

export function readPrompt() {
  const file = process.env.NARUTO_PROMPT_FILE;
  return file ? readFileSync(file, "utf8") : "";
}

/**
 * The edits to make, as `{ "path": "content" | null }` (null deletes). From NARUTO_FAKE_EDITS,
 * else from a prompt line `fake-edits: {...}`, else one file inside the item's first write path.
 */
export function editSpec() {
  if (process.env.NARUTO_FAKE_EDITS) return JSON.parse(process.env.NARUTO_FAKE_EDITS);
  const line = readPrompt()
    .split("\n")
    .find((l) => l.startsWith("fake-edits: "));
  if (line) return JSON.parse(line.slice("fake-edits: ".length));
  return { [defaultPath(writes[0] ?? ".")]: `edited by ${item} (attempt ${attempt})\n` };
}

/** A file inside the write path `w`: `w` itself, or `<w>/<item>.txt` for a directory or the root. */
export function defaultPath(w) {
  if (w === ".") return `${item}.txt`;
  return w.endsWith("/") ? `${w}${item}.txt` : w;
}

export function applyEdits(spec) {
  for (const [path, content] of Object.entries(spec)) {
    if (content === null) {
      rmSync(path, { force: true });
      console.log(`deleted ${path}`);
    } else {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, content);
      console.log(`wrote ${path}`);
    }
  }
  return Object.keys(spec);
}

export function writeResult(result) {
  if (process.env.NARUTO_RESULT_FILE) writeFileSync(process.env.NARUTO_RESULT_FILE, JSON.stringify(result));
}

export function editAndReport(name) {
  const paths = applyEdits(editSpec());
  writeResult({ summary: `${name}: changed ${paths.join(", ")}`, cost_usd: 0.01, tokens_in: 100, tokens_out: 20, model: "fake" });
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
