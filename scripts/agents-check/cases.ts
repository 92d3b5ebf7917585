/**
 * What every CLI is put through: one mission of these items. Each case is an item of the plan,
 * the scenario its scripted model plays (picked by `match`, which the item's prompt holds), and
 * what naruto must make of it. To add a case, add an entry: every CLI's mission gets the item.
 */
import type { CliDriver, Scenario } from "./types.ts";

export type Expectation =
  /** Integrated, and the queue branch holds exactly these files (path → content). */
  | { readonly status: "integrated"; readonly files: Readonly<Record<string, string>> }
  /** Refused by the gate, the reason naming the path. */
  | { readonly status: "out_of_scope"; readonly path: string }
  /** The agent changed nothing: the item is `failed`, its attempt `no_changes`. */
  | { readonly status: "no_changes" }
  /** The attempt failed, the reason holding this text. */
  | { readonly status: "failed"; readonly reason: string };

export interface CheckCase {
  /** The plan item's id. */
  readonly id: string;
  readonly writes: readonly string[];
  readonly scenario: Scenario;
  readonly expect: Expectation;
  /** Where a CLI's own rules make a difference (one that refuses the step and says so). */
  readonly expectOf?: Partial<Record<CliDriver["name"], Expectation>>;
}

export function expectationFor(c: CheckCase, cli: CliDriver["name"]): Expectation {
  return c.expectOf?.[cli] ?? c.expect;
}

/** A marker the scripted servers find in the prompt; nothing else in the conversation holds it. */
const marker = (id: string) => `[agents-check:${id}]`;

export const CASES: readonly CheckCase[] = [
  {
    id: "write-in-scope",
    writes: ["notes/in-scope.txt"],
    scenario: {
      match: marker("write-in-scope"),
      steps: [{ write: { path: "notes/in-scope.txt", content: "written by the scripted model\nline two\n" } }, { say: "Wrote notes/in-scope.txt." }],
      usage: { input: 1200, output: 35, cacheRead: 400 },
    },
    expect: { status: "integrated", files: { "notes/in-scope.txt": "written by the scripted model\nline two\n" } },
  },
  {
    id: "write-out-of-scope",
    writes: ["notes/allowed.txt"],
    scenario: {
      match: marker("write-out-of-scope"),
      steps: [{ write: { path: "elsewhere/outside.txt", content: "not the item's to write\n" } }, { say: "Wrote elsewhere/outside.txt." }],
      usage: { input: 900, output: 21, cacheRead: 0 },
    },
    expect: { status: "out_of_scope", path: "elsewhere/outside.txt" },
  },
  {
    // An agent that commits on its own: the work directory's repository is a throwaway, so the
    // change must still be found and integrated, and nothing of the user's repository moves.
    id: "shell-commit",
    writes: ["notes/committed.txt"],
    scenario: {
      match: marker("shell-commit"),
      steps: [
        { write: { path: "notes/committed.txt", content: "committed by the agent itself\n" } },
        { shell: "git add -A && git commit -qam 'the agent commits on its own'" },
        { say: "Wrote and committed notes/committed.txt." },
      ],
      usage: { input: 700, output: 13, cacheRead: 100 },
    },
    expect: { status: "integrated", files: { "notes/committed.txt": "committed by the agent itself\n" } },
  },
  {
    // A write outside the work directory: nothing of it can reach the queue (the sandbox shows the
    // agent nothing there to write to), and a CLI that refuses it says why. Claude Code's refusal
    // is only in its JSON: its preset turns it into the attempt's reason.
    id: "write-outside-work-dir",
    writes: ["notes/outside.txt"],
    scenario: {
      match: marker("write-outside-work-dir"),
      steps: [{ write: { path: "../outside-the-work-dir.txt", content: "nowhere to go\n" } }, { say: "Wrote ../outside-the-work-dir.txt." }],
      usage: { input: 500, output: 9, cacheRead: 0 },
    },
    expect: { status: "no_changes" },
    expectOf: { claude: { status: "failed", reason: "Claude Code refused 1 tool call(s): Write " } },
  },
];

/** The plan of the mission, as a user would write it (README, "The plan format"). */
export function planOf(cases: readonly CheckCase[]): string {
  const items = cases.map((c) => ({
    id: c.id,
    title: `agents-check ${c.id}`,
    prompt: `Follow the scripted scenario ${c.scenario.match}.`,
    writes: [...c.writes],
  }));
  return `${JSON.stringify({ version: 1, title: "agents-check: a real CLI under naruto", items }, null, 2)}\n`;
}
