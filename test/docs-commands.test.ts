/**
 * The README's and the docs' commands and files exist: every `naruto COMMAND --option` written
 * in code (a code span or a code block) is a command `naruto --help` lists, with options its own
 * `--help` lists, and every repository path written in code is a file or folder of the
 * repository. A renamed flag or a moved file then fails here, not in a newcomer's terminal.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { main } from "../src/cli/main.ts";
import { fakeCli } from "./local/cli-io.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DOCS = ["README.md", "CONTRIBUTING.md", ...readdirSync(join(ROOT, "docs")).map((f) => `docs/${f}`)];

async function help(args: string[]): Promise<string> {
  const cli = fakeCli(ROOT);
  await main([...args, "--help"], cli.io);
  return cli.stdout();
}

/** The text of every code span and code block of a markdown file, each with its line. */
function codeOf(text: string): Array<{ code: string; line: number }> {
  const found: Array<{ code: string; line: number }> = [];
  const lines = text.split("\n");
  let fence: string[] | null = null;
  let fenceLine = 0;
  lines.forEach((line, i) => {
    if (/^\s*```/.test(line)) {
      if (fence === null) {
        fence = [];
        fenceLine = i + 1;
      } else {
        found.push({ code: fence.join("\n"), line: fenceLine });
        fence = null;
      }
      return;
    }
    if (fence !== null) fence.push(line);
    else for (const [, span = ""] of line.matchAll(/`([^`]+)`/g)) found.push({ code: span, line: i + 1 });
  });
  return found;
}

/**
 * `naruto COMMAND [args]` where a code span or a code block's line starts with it (after `npx`
 * or `$ `): not `/naruto …` (a comment command), `naruto/<branch>` or `# >>> naruto yours:`.
 */
function narutoCommands(code: string): Array<{ command: string; options: string[] }> {
  const commands: Array<{ command: string; options: string[] }> = [];
  for (const match of code.matchAll(/^\s*(?:\$ )?(?:npx )?naruto ([a-z][a-z_-]*)([^\n|;&#`]*)/gm)) {
    const [whole = "", command = "", rest = ""] = match;
    if (NOT_COMMANDS.some((pattern) => pattern.test(whole.trim()))) continue;
    commands.push({ command, options: [...rest.matchAll(/(?<![\w-])(--[a-z][a-z-]*)/g)].map((m) => m[1] ?? "") });
  }
  return commands;
}

/**
 * What the docs write like a command and is not one: the template's step names (`naruto agent`,
 * `naruto sandbox`, `naruto queue`) and run titles (`naruto work m-1a2b3c`, `naruto schedule`).
 */
const NOT_COMMANDS = [
  ...[...readFileSync(join(ROOT, "templates/naruto.yml"), "utf8").matchAll(/^\s+- name: (naruto [a-z]+)$/gm)].map((m) => new RegExp(`^${m[1] ?? ""}$`)),
  /^naruto [a-z]+ m-[0-9a-z]+/,
  /^naruto (issue_comment|schedule)$/,
];

const PATH =
  /^(?:src|test|scripts|docs|templates|schema|examples|bench|bin|\.ci)\/[\w./-]*$|^(?:app\.yml|action\.yml|Dockerfile|\.env\.example|LICENSE|package\.json|vitest\.config\.ts)$/;

describe("the docs' commands and files", () => {
  it("name only commands and options naruto --help lists", async () => {
    const listed = [...(await help([])).matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((m) => m[1] ?? "");
    expect(listed).toEqual(expect.arrayContaining(["plan", "run", "init", "upgrade", "doctor"]));
    const optionsOf = new Map<string, Set<string>>();
    const wrong: string[] = [];
    for (const doc of DOCS) {
      for (const { code, line } of codeOf(readFileSync(join(ROOT, doc), "utf8"))) {
        for (const { command, options } of narutoCommands(code)) {
          if (!listed.includes(command)) {
            wrong.push(`${doc}:${line}: naruto ${command} is no command of naruto --help`);
            continue;
          }
          if (!optionsOf.has(command)) optionsOf.set(command, new Set([...(await help([command])).matchAll(/(--[a-z][a-z-]*)/g)].map((m) => m[1] ?? "")));
          for (const option of options) if (!optionsOf.get(command)?.has(option)) wrong.push(`${doc}:${line}: naruto ${command} has no ${option}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(optionsOf.size).toBeGreaterThan(8);
  });

  it("name only files and folders the repository has", () => {
    const missing: string[] = [];
    for (const doc of DOCS) {
      for (const { code, line } of codeOf(readFileSync(join(ROOT, doc), "utf8"))) {
        const path = code.trim().replace(/[.,:;)]+$/, "");
        // `src/a/x.ts` in the plan format's examples is made up: only paths in a folder the repository has count.
        const folder = path.split("/").slice(0, 2).join("/");
        if (PATH.test(path) && !path.includes("<") && existsSync(join(ROOT, folder)) && !existsSync(join(ROOT, path))) missing.push(`${doc}:${line}: ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("finds a command that does not exist (the check can fail)", () => {
    expect(narutoCommands("npx naruto lint --fix\nnaruto init --agent codex   # --app too")).toEqual([
      { command: "lint", options: ["--fix"] },
      { command: "init", options: ["--agent"] },
    ]);
    expect(narutoCommands("/naruto plan x")).toEqual([]);
    expect(narutoCommands("naruto sandbox")).toEqual([]);
    expect(narutoCommands("naruto work m-1a2b3c")).toEqual([]);
  });
});
