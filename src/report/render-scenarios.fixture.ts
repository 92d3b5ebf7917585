/**
 * The cases of issue 17 and what naruto renders for each: the tracking comment, the verdict
 * comment, the report and `naruto plan`'s output, with the helpers that read them back as GitHub
 * and Mermaid would. Shared by github-render.test.ts (sizes, structure, Mermaid's parser) and
 * github-render.svg.test.ts (Mermaid's whole render, slower).
 */
import type mermaidApi from "mermaid";
import { planReport } from "./plan-report.ts";
import { formatPlanHuman } from "./plan-format.ts";
import type { Mission } from "../mission/index.ts";
import type { MissionEvent } from "../mission/index.ts";
import { step } from "../mission/index.ts";
import { ITEM_STATUSES } from "../mission/index.ts";
import { checkPlan } from "../plan/index.ts";
import { at, item, missionAfter, requested } from "../../test/support/mission-builders.ts";
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
export const MERMAID_MAX_TEXT = 50_000;

interface PlanItemText {
  readonly id: string;
  readonly title: string;
  readonly writes: readonly string[];
  readonly after?: readonly string[];
}

export interface Scenario {
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
const SCRIPTS = ["नमस्ते दुनिया", "مَرْحَبًا بالعالم", "שָׁלוֹם עוֹלָם", "สวัสดีครับ", "cafe\u0301 de\u0301ja\u0300 vu", "🚀 Ship it 🎉 👩‍💻 👍🏽 🇯🇵"];

function shared(n: number): PlanItemText[] {
  return Array.from({ length: n }, (_, i) => ({ id: `s-${i}`, title: `Change the shared file, part ${i}`, writes: ["src/shared.ts"] }));
}

export const SCENARIOS: Scenario[] = [
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
  {
    name: "every item status",
    statuses: "every",
    items: ITEM_STATUSES.map((s, i) => ({ id: `st-${i}`, title: `An item left ${s}`, writes: [`src/st-${i}/`] })),
  },
  { name: "hostile titles", statuses: "progress", items: HOSTILE.map((title, i) => ({ id: `h-${i}`, title, writes: ["src/h.ts"] })) },
  {
    name: "titles in many scripts",
    statuses: "progress",
    items: SCRIPTS.map((title, i) => ({ id: `t-${i}`, title, writes: [`src/t-${i}/`], after: i > 0 ? [`t-${i - 1}`] : [] })),
  },
  ...[33, 64, 120, 256].map((n): Scenario => ({ name: `${n} items sharing one path`, statuses: "progress", items: shared(n) })),
  {
    name: "40 items each after all earlier ones",
    statuses: "progress",
    items: Array.from({ length: 40 }, (_, i) => ({
      id: `a-${i}`,
      title: `Step ${i}`,
      writes: [`src/a-${i}/`],
      after: Array.from({ length: i }, (_, j) => `a-${j}`),
    })),
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
export function missionOf(s: Scenario): Mission {
  const check = checkPlan(planText(s));
  if (!check.plan) throw new Error(`${s.name}: ${JSON.stringify(check.errors)}`);
  const added = new Map(check.items.map((i) => [i.id, [...i.added_after]]));
  const items = check.plan.items.map((p) =>
    item(p.id, [...p.after], { title: p.title, writes: p.writes.map((w) => w.path), added_after: added.get(p.id) ?? [] }),
  );
  let m = missionAfter([request(`- ${s.name}\n===\n1. and more\n---`), { type: "planned", at: at(1), title: s.name, items, proof: check.proof }]);
  if (s.statuses === "every") {
    m = { ...m, items: m.items.map((it, i) => ({ ...it, status: ITEM_STATUSES[i % ITEM_STATUSES.length]!, reason: i % 3 === 0 ? null : `reason ${i}` })) };
  } else {
    // The first item fails, the next one runs: a mission under way.
    const first = m.items[0]!.id;
    m = step(m, {
      type: "attempt_started",
      at: at(2),
      item: first,
      attempt: 1,
      base: "b".repeat(40),
      runner: "https://github.com/acme/demo/actions/runs/7",
    }).mission;
    m = {
      ...m,
      items: m.items.map((it, i) =>
        i === 0 ? { ...it, status: "failed" as const, reason: "the agent crashed" } : i === 1 ? { ...it, status: "running" as const } : it,
      ),
    };
  }
  return { ...m, verdict: { verdict: "request_changes", summary: "1. Two items failed.\n---", findings: [] } };
}

export interface Rendered {
  readonly name: string;
  readonly text: string;
  /** The line that must survive any cut. */
  readonly verdict: RegExp;
}

export function renderAll(s: Scenario): Rendered[] {
  const m = missionOf(s);
  return [
    {
      name: "tracking comment",
      text: trackingComment(m, {
        links: { run: "https://github.com/acme/demo/actions/runs/7", report: "https://github.com/acme/demo/actions/runs/7#summary" },
      }),
      verdict: /^\*\*Verdict:\*\* ✋ \*\*request_changes\*\*/m,
    },
    { name: "verdict comment", text: verdictComment(m), verdict: /^## ✋ naruto verdict: request_changes$/m },
    { name: "report", text: missionReport(m), verdict: /^✋ \*\*request_changes\*\*/m },
    { name: "naruto plan", text: formatPlanHuman(planReport(planText(s), PLAN_OPTIONS, null)), verdict: /^plan ok: proof naruto\.proof\/v1 checks/m },
  ];
}

export function mermaidBlocks(text: string): string[] {
  return [...text.matchAll(/^```mermaid\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/** Fence lines (``` or ~~~ at a line start, outside nothing else): an odd count leaves one open. */
export function fenceLines(text: string): number {
  return text.split("\n").filter((l) => /^(```|~~~)/.test(l)).length;
}

const NAMED: Readonly<Record<string, string>> = { quot: '"', amp: "&", lt: "<", gt: ">", apos: "'", nbsp: "\u00a0" };

/** What a label shows: Mermaid's entity placeholders back to `&…;`, then the HTML entities decoded. */
export function shownText(text: string): string {
  const html = text.replace(/ﬂ°°/g, "&#").replace(/ﬂ°/g, "&").replace(/¶ß/g, ";");
  return html.replace(/&(?:#(\d+)|#x([0-9a-f]+)|(\w+));/gi, (ref, dec?: string, hex?: string, name?: string) => {
    if (name !== undefined) return NAMED[name] ?? ref;
    return String.fromCodePoint(Number.parseInt(dec ?? hex ?? "", dec === undefined ? 16 : 10));
  });
}

/** The titles a graph's labels must show, by item id: NFC, line breaks as spaces. */
export function titlesOf(s: Scenario): Map<string, string> {
  return new Map(s.items.map((i) => [i.id, i.title.normalize("NFC").replace(/\s+/g, " ").trim()]));
}

/**
 * Mermaid, loaded in a jsdom test file and set up as GitHub runs it (`securityLevel: strict`).
 * jsdom lays nothing out: SVG text measures are stubbed (a width per character) so that a render
 * runs Mermaid's whole pipeline, sanitizing, layout and the SVG it would put on the page.
 */
export async function loadMermaid(): Promise<typeof mermaidApi> {
  const svg = (globalThis as unknown as { SVGElement: { prototype: Record<string, unknown> } }).SVGElement.prototype;
  svg["getBBox"] = function (this: { textContent: string | null }) {
    return { x: 0, y: 0, width: 8 * (this.textContent?.length ?? 1), height: 20 };
  };
  svg["getComputedTextLength"] = function (this: { textContent: string | null }) {
    return 8 * (this.textContent?.length ?? 1);
  };
  const mermaid = (await import("mermaid")).default;
  mermaid.initialize({ startOnLoad: false, securityLevel: "strict" });
  return mermaid;
}

/** Per node id (`n3`), the text its label shows in the rendered SVG. */
export function renderedLabels(svg: string): Map<string, string> {
  const labels = new Map<string, string>();
  for (const m of svg.matchAll(/<g class="node [^"]*" id="[^"]*-flowchart-(n\d+)-\d+"[\s\S]*?<span[^>]*class="nodeLabel"[^>]*>([\s\S]*?)<\/span>/g)) {
    labels.set(m[1]!, shownText(m[2]!.replace(/<[^>]*>/g, "")));
  }
  return labels;
}
