// @vitest-environment jsdom
/**
 * Issue 17: everything naruto posts or prints, for plans small and large, hostile and in every
 * script, as GitHub would show it. Each ```mermaid block goes through the real `mermaid` package
 * (on jsdom), each comment is held to GitHub's limit with its verdict line and closed fences, and
 * each node label must say exactly its item's title.
 */
import { marked, type Token } from "marked";
import type mermaidApi from "mermaid";
import { beforeAll, describe, expect, it } from "vitest";
import { planReport } from "../cli/plan-report.ts";
import { formatPlanHuman } from "../cli/plan-format.ts";
import type { Mission } from "../mission/document.ts";
import type { MissionEvent } from "../mission/events.ts";
import { step } from "../mission/step.ts";
import { ITEM_STATUSES } from "../mission/status.ts";
import { checkPlan } from "../plan/index.ts";
import { at, item, missionAfter, requested } from "../../test/support/mission-builders.ts";
import { COMMENT_LIMIT } from "./fit.ts";
import { missionReport } from "./markdown.ts";
import { trackingComment } from "./tracking-comment.ts";
import { verdictComment } from "./verdict-comment.ts";

/**
 * Mermaid 11's own limits. Edges: `FlowDB.addSingleLink` throws "Edge limit exceeded" while
 * parsing (dist/chunks/mermaid.core/chunk-SHT3W25Y.mjs, `config.maxEdges ?? 500`), so `parse`
 * enforces it. Text: `mermaidAPI.render` swaps any source longer than `maxTextSize` (default
 * `MAX_TEXTLENGTH = 5e4`, dist/mermaid.core.mjs) for "Maximum text size in diagram exceeded";
 * `parse` does not look, so this test does.
 */
const MERMAID_MAX_TEXT = 50_000;

interface PlanItemText {
  readonly id: string;
  readonly title: string;
  readonly writes: readonly string[];
  readonly after?: readonly string[];
}

interface Scenario {
  readonly name: string;
  readonly items: readonly PlanItemText[];
  /** Item statuses to set after planning, by position (default: as the mission engine leaves them). */
  readonly statuses?: "every" | "progress";
}

const HOSTILE = [
  'x"]; click n0 href "javascript:alert(1)" `rm -rf` <img src=x onerror=alert(1)>',
  "]]]}}}\"\"\"``` end subgraph %%{init: {'theme':'dark'}}%% --> n1",
  "style n0 fill:#f00; classDef a fill:#0f0; #quot; &amp; #35; | pipe ;",
  "- list item @everyone #1 [link](http://evil) **bold** <b>b</b>",
  "1. numbered\\ back\\slash ~~strike~~ :::cls ---> ==> -.->",
];
const SCRIPTS = [
  "नमस्ते दुनिया",
  "مَرْحَبًا بالعالم",
  "שָׁלוֹם עוֹלָם",
  "สวัสดีครับ",
  "cafe\u0301 de\u0301ja\u0300 vu",
  "🚀 Ship it 🎉 👩‍💻 👍🏽 🇯🇵",
];

function shared(n: number): PlanItemText[] {
  return Array.from({ length: n }, (_, i) => ({ id: `s-${i}`, title: `Change the shared file, part ${i}`, writes: ["src/shared.ts"] }));
}

const SCENARIOS: Scenario[] = [
  {
    name: "5 items, every status",
    statuses: "every",
    items: [
      { id: "schema", title: "Shared zod schemas", writes: ["src/api/schema.ts"] },
      { id: "users-api", title: "Validate users handler input", writes: ["src/api/users.ts", "src/api/shared.ts"], after: ["schema"] },
      { id: "orders-api", title: "Validate orders handler input", writes: ["src/api/orders.ts", "src/api/shared.ts"], after: ["schema"] },
      { id: "docs", title: "Document the validation errors", writes: ["docs/api.md"] },
      { id: "billing", title: "Validate billing webhooks", writes: ["src/billing/"], after: ["orders-api"] },
    ],
  },
  { name: "every item status", statuses: "every", items: ITEM_STATUSES.map((s, i) => ({ id: `st-${i}`, title: `An item left ${s}`, writes: [`src/st-${i}/`] })) },
  { name: "hostile titles", statuses: "progress", items: HOSTILE.map((title, i) => ({ id: `h-${i}`, title, writes: ["src/h.ts"] })) },
  { name: "titles in many scripts", statuses: "progress", items: SCRIPTS.map((title, i) => ({ id: `t-${i}`, title, writes: [`src/t-${i}/`], after: i > 0 ? [`t-${i - 1}`] : [] })) },
  ...[33, 64, 120, 256].map((n): Scenario => ({ name: `${n} items sharing one path`, statuses: "progress", items: shared(n) })),
  {
    name: "40 items each after all earlier ones",
    statuses: "progress",
    items: Array.from({ length: 40 }, (_, i) => ({ id: `a-${i}`, title: `Step ${i}`, writes: [`src/a-${i}/`], after: Array.from({ length: i }, (_, j) => `a-${j}`) })),
  },
];

const PLAN_OPTIONS = { json: false, strict: false, maxParallel: null, maxItems: null } as const;

function planText(s: Scenario): string {
  return JSON.stringify({ version: 1, title: s.name, items: s.items.map((i) => ({ id: i.id, title: i.title, writes: i.writes, after: i.after ?? [] })) });
}

/** A request whose lines look like markdown structure, on a base branch with a `|` in its name. */
function request(task: string): MissionEvent {
  const e = requested();
  return e.type === "requested" ? { ...e, task, base: { ...e.base, ref: "feat|pipe" } } : e;
}

/** The mission naruto would run for the scenario's plan, with statuses to show. */
function missionOf(s: Scenario): Mission {
  const check = checkPlan(planText(s));
  if (!check.plan) throw new Error(`${s.name}: ${JSON.stringify(check.errors)}`);
  const added = new Map(check.items.map((i) => [i.id, [...i.added_after]]));
  const items = check.plan.items.map((p) => item(p.id, [...p.after], { title: p.title, writes: p.writes.map((w) => w.path), added_after: added.get(p.id) ?? [] }));
  let m = missionAfter([request(`- ${s.name}\n===\n1. and more\n---`), { type: "planned", at: at(1), title: s.name, items, proof: check.proof }]);
  if (s.statuses === "every") {
    m = { ...m, items: m.items.map((it, i) => ({ ...it, status: ITEM_STATUSES[i % ITEM_STATUSES.length]!, reason: i % 3 === 0 ? null : `reason ${i}` })) };
  } else {
    // The first item fails, the next one runs: a mission under way.
    const first = m.items[0]!.id;
    m = step(m, { type: "attempt_started", at: at(2), item: first, attempt: 1, base: "b".repeat(40), runner: "https://github.com/acme/demo/actions/runs/7" }).mission;
    m = { ...m, items: m.items.map((it, i) => (i === 0 ? { ...it, status: "failed" as const, reason: "the agent crashed" } : i === 1 ? { ...it, status: "running" as const } : it)) };
  }
  return { ...m, verdict: { verdict: "request_changes", summary: "1. Two items failed.\n---", findings: [] } };
}

interface Rendered {
  readonly name: string;
  readonly text: string;
  /** The line that must survive any cut. */
  readonly verdict: RegExp;
}

function renderAll(s: Scenario): Rendered[] {
  const m = missionOf(s);
  return [
    { name: "tracking comment", text: trackingComment(m, { links: { run: "https://github.com/acme/demo/actions/runs/7", report: "https://github.com/acme/demo/actions/runs/7#summary" } }), verdict: /^\*\*Verdict:\*\* ✋ \*\*request_changes\*\*/m },
    { name: "verdict comment", text: verdictComment(m), verdict: /^## ✋ naruto verdict: request_changes$/m },
    { name: "report", text: missionReport(m), verdict: /^✋ \*\*request_changes\*\*/m },
    { name: "naruto plan", text: formatPlanHuman(planReport(planText(s), PLAN_OPTIONS, null)), verdict: /^plan ok: proof naruto\.proof\/v1 checks/m },
  ];
}

function mermaidBlocks(text: string): string[] {
  return [...text.matchAll(/^```mermaid\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/** Fence lines (``` or ~~~ at a line start, outside nothing else): an odd count leaves one open. */
function fenceLines(text: string): number {
  return text.split("\n").filter((l) => /^(```|~~~)/.test(l)).length;
}

const NAMED: Readonly<Record<string, string>> = { quot: '"', amp: "&", lt: "<", gt: ">", apos: "'", nbsp: "\u00a0" };

/** What a label shows: Mermaid's entity placeholders back to `&…;`, then the HTML entities decoded. */
function shownText(text: string): string {
  const html = text.replace(/ﬂ°°/g, "&#").replace(/ﬂ°/g, "&").replace(/¶ß/g, ";");
  return html.replace(/&(?:#(\d+)|#x([0-9a-f]+)|(\w+));/gi, (ref, dec?: string, hex?: string, name?: string) => {
    if (name !== undefined) return NAMED[name] ?? ref;
    return String.fromCodePoint(Number.parseInt(dec ?? hex ?? "", dec === undefined ? 16 : 10));
  });
}

function blockTokens(text: string): Token[] {
  return marked.lexer(text, { gfm: true });
}

let mermaid: typeof mermaidApi;
beforeAll(async () => {
  mermaid = (await import("mermaid")).default;
  mermaid.initialize({ startOnLoad: false, securityLevel: "strict" });
});

describe.each(SCENARIOS)("$name", (scenario) => {
  const rendered = renderAll(scenario);
  const titles = new Map(scenario.items.map((i) => [i.id, i.title.normalize("NFC").replace(/\s+/g, " ").trim()]));

  it.each(rendered.map((r) => [r.name, r]))("%s fits GitHub, keeps its verdict line and closes every fence", (_name, r) => {
    expect(r.text.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(r.text).toMatch(r.verdict);
    expect(fenceLines(r.text) % 2).toBe(0);
    expect(mermaidBlocks(r.text)).toHaveLength(r.name === "verdict comment" ? 0 : 1);
  });

  it.each(rendered.map((r) => [r.name, r]))("%s: Mermaid parses the graph, within its limits, each label its title", async (_name, r) => {
    for (const source of mermaidBlocks(r.text)) {
      expect(source.length).toBeLessThanOrEqual(MERMAID_MAX_TEXT);
      await expect(mermaid.parse(source)).resolves.toBeTruthy();
      const diagram = await mermaid.mermaidAPI.getDiagramFromText(source);
      const db = diagram.db as { getVertices(): Map<string, { id: string; text?: string }>; getEdges(): unknown[] };
      expect(db.getEdges().length).toBeLessThanOrEqual(Math.max(scenario.items.length, 20));
      for (const vertex of db.getVertices().values()) {
        if (!/^n\d+$/.test(vertex.id)) continue; // naruto's group nodes carry counts, not titles
        const shown = shownText(vertex.text ?? "");
        const id = /^([a-z0-9][a-z0-9._-]*): /.exec(shown)?.[1] ?? "";
        expect(titles.has(id), shown).toBe(true);
        expect(shown).toBe(`${id}: ${titles.get(id)}`);
      }
    }
  });

  it("user text becomes no markdown structure in the comments", () => {
    for (const r of rendered.slice(0, 3)) {
      const tokens = blockTokens(r.text);
      expect(tokens.filter((t) => t.type === "hr"), r.name).toEqual([]);
      const headings = tokens.filter((t) => t.type === "heading").map((t) => (t as { text: string }).text);
      for (const h of headings) expect(h, r.name).toMatch(/^(naruto|✋ naruto verdict|Request|Verdict|Items|No-overlap proof|Queue|Containment|Cost|Graph)/);
      // The only list is the checklist: the request and the summary (`- …`, `1. …`) stay text.
      for (const list of tokens.filter((t) => t.type === "list")) {
        for (const entry of (list as { items: { task: boolean }[] }).items) expect(entry.task, r.name).toBe(true);
      }
      // A ref name sits in a code span; `\|` belongs in table cells only, where GFM reads it as `|`.
      for (const line of r.text.split("\n").filter((l) => !l.startsWith("|"))) expect(line, r.name).not.toMatch(/`[^`]*\\\|[^`]*`/);
      for (const quote of tokens.filter((t) => t.type === "blockquote")) {
        const inside = (quote as { tokens: Token[] }).tokens.map((t) => t.type);
        expect(inside.filter((k) => k !== "paragraph" && k !== "space"), r.name).toEqual([]);
      }
    }
  });
});
