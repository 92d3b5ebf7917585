/**
 * `/naruto …` comments (docs/action.md) turned into commands: pure, shared by the App and the
 * Action's app-less `command` mode. The comment is untrusted: its text only ever becomes data
 * (a task for a prompt file, an item id checked against the plan), never a shell word, a ref
 * name or YAML.
 */
import { sanitizeUntrusted, sanitizeUntrustedText } from "../sanitize/index.ts";
import { findFencedPlan } from "../plan/index.ts";

export type NarutoCommand =
  | { readonly kind: "run"; readonly task: string; readonly plan: string | null }
  | { readonly kind: "plan"; readonly task: string; readonly plan: string | null }
  | { readonly kind: "approve" }
  | { readonly kind: "status" }
  | { readonly kind: "retry"; readonly target: string }
  | { readonly kind: "cancel" }
  | { readonly kind: "review" }
  | { readonly kind: "fix-review" }
  | { readonly kind: "refresh" }
  | { readonly kind: "help"; readonly reason: string | null };

const NO_ARGS = ["approve", "status", "cancel", "review", "fix-review", "refresh"] as const;
const ALL = ["plan", "retry", "help", ...NO_ARGS] as const;
const ITEM_OR_FAILED = /^(failed|[a-z0-9][a-z0-9._-]{0,62})$/;

/**
 * The ```` ```naruto ```` block of untrusted Markdown as the page shows it. A code block shows its
 * text as written, markup included, so the plan is the block's own text with only the invisible
 * characters removed (`<div class="x">` or `[ref]: url` in a prompt are kept) — provided the
 * block is one the page shows at all: the same block must be found in the text sanitized of
 * everything the page hides (a block inside an HTML comment is not), else that visible one is used.
 */
export function visibleFencedPlan(body: string): string | null {
  const visible = findFencedPlan(sanitizeUntrusted(body));
  if (visible === null) return null;
  const written = findFencedPlan(sanitizeUntrustedText(body));
  return written !== null && sanitizeUntrusted(written.body) === visible.body ? written.body : visible.body;
}

/**
 * Reads a comment. Null when it is not addressed to naruto (its first line does not start with
 * `/naruto`). Edited comments are never passed here: only `created` events trigger.
 *
 * @example parseCommand("/naruto retry users-api") → { kind: "retry", target: "users-api" }
 * @example parseCommand("/naruto add input validation\nmore detail") → { kind: "run", task: "add input validation\nmore detail", plan: null }
 */
export function parseCommand(body: string): NarutoCommand | null {
  const text = sanitizeUntrusted(body).replace(/^\s+/, "");
  const first = text.split("\n", 1)[0] ?? "";
  const match = /^\/naruto(?:\s+|$)(.*)$/.exec(first.trimEnd());
  if (!match) return null;
  const rest = (match[1] ?? "").trim();
  const more = text.slice(first.length).replace(/^\n/, "");
  const plan = visibleFencedPlan(body);
  const [word = "", ...args] = rest.split(/\s+/).filter((w) => w !== "");

  if ((NO_ARGS as readonly string[]).includes(word)) {
    if (args.length > 0) return { kind: "help", reason: `\`/naruto ${word}\` takes no arguments` };
    return { kind: word as (typeof NO_ARGS)[number] };
  }
  if (word === "help") return { kind: "help", reason: null };
  if (word === "retry") {
    const target = args[0];
    if (args.length !== 1 || target === undefined || !ITEM_OR_FAILED.test(target)) {
      return { kind: "help", reason: "`/naruto retry` takes one item id, or `failed` for every failed item" };
    }
    return { kind: "retry", target };
  }
  const planOnly = word === "plan";
  const taskText = [planOnly ? args.join(" ") : rest, withoutFence(more)]
    .filter((t) => t.trim() !== "")
    .join("\n")
    .trim();
  if (taskText === "" && plan === null) {
    return { kind: "help", reason: planOnly ? "`/naruto plan` needs a task or a ```naruto plan block" : null };
  }
  if (!planOnly && args.length === 0 && plan === null && !more.trim() && nearCommand(word)) {
    return { kind: "help", reason: `unknown command \`${word}\`: did you mean \`/naruto ${nearCommand(word)}\`?` };
  }
  return { kind: planOnly ? "plan" : "run", task: taskText, plan };
}

/** A command the one-word text was probably meant to be (a typo must not start a mission). */
function nearCommand(word: string): string | null {
  if (word.length < 3) return null;
  let best: string | null = null;
  for (const c of ALL) if (distance(word.toLowerCase(), c) <= 2 && word.toLowerCase() !== c) best ??= c;
  return best;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0] ?? 0;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j] ?? 0;
      row[j] = Math.min(cur + 1, (row[j - 1] ?? 0) + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length] ?? 0;
}

/** The text around a ```naruto block: the block itself is the plan, not part of the task. */
function withoutFence(text: string): string {
  return text.replace(/(^|\n)(```+|~~~+)\s*naruto[^\n]*\n[\s\S]*?\n\2[^\n]*(?=\n|$)/, "$1").trim();
}

/** The short reply to a help request or an unknown command. */
export function helpText(reason: string | null): string {
  return [
    reason ? `${reason}\n` : "",
    "**naruto** commands (first line of a comment):",
    "",
    "- `/naruto <task>` — plan the task and run it with agents in parallel",
    "- `/naruto plan <task>` — plan only; post the plan and wait for `/naruto approve`",
    "- `/naruto approve` — run the posted plan",
    "- `/naruto status` — refresh the tracking comment",
    "- `/naruto retry <item|failed>` — retry one failed item, or all of them",
    "- `/naruto cancel` — stop the mission",
    "- `/naruto refresh` — replay the mission's queue onto its base branch as it is now, verified (on the issue or the queue pull request)",
    "- on a pull request: `/naruto review` (the arbiter on the PR's diff), `/naruto fix-review` (one item per file with unresolved review threads)",
    "",
    "A ```naruto fenced block in the comment or the issue is used as the plan.",
  ]
    .join("\n")
    .trim();
}
