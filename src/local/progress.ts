/**
 * What a person sees while a local mission runs: on a terminal, one live line per running item
 * (and the planner while it plans) with its time so far and its agent's last line, plus totals,
 * redrawn in place; elsewhere (CI, a pipe), plain log lines, one per event, and every minute a
 * line per running item with the same, so that a long agent is never silence.
 */
import { outputTail } from "../agent/index.ts";
import { isNeverStarted, outcomeReason, type Mission, type MissionEvent } from "../mission/index.ts";

/** The key of the planner agent's output (no item id can be it: ids start with a letter or digit). */
export const PLANNER_OUTPUT = "(planner)";

/** How often the log says what is still running. */
export const HEARTBEAT_MS = 60_000;

export interface Progress {
  event(event: MissionEvent, mission: Mission): void;
  output(item: string, chunk: Buffer): void;
  error(error: unknown): void;
  /** Clears the live view before the final summary. */
  close(): void;
}

export const silentProgress: Progress = { event() {}, output() {}, error() {}, close() {} };

/**
 * One line per event, prefixed with the time since the start, and every `every` ms (default a
 * minute; null: never) a line per running item, and the planner while it plans.
 */
export function logProgress(write: (text: string) => void, now: () => Date, options: { readonly every?: number | null } = {}): Progress {
  const start = now().getTime();
  const stamp = () => `[${clock(now().getTime() - start)}]`;
  let mission: Mission | null = null;
  const lastOutput = new Map<string, string>();
  const every = options.every === undefined ? HEARTBEAT_MS : options.every;
  const timer =
    every === null
      ? null
      : setInterval(() => {
          if (mission !== null) for (const line of stillRunning(mission, lastOutput, now())) write(`${stamp()} ${line}\n`);
        }, every);
  timer?.unref();
  return {
    event(e, m) {
      mission = m;
      const line = describe(e, m);
      if (line) write(`${stamp()} ${line}\n`);
    },
    output(item, chunk) {
      noteLastLine(lastOutput, item, chunk);
    },
    error(e) {
      write(`${stamp()} warning: ${e instanceof Error ? e.message : String(e)}\n`);
    },
    close() {
      if (timer !== null) clearInterval(timer);
    },
  };
}

/** Keeps an agent's last line, control characters dropped (it is drawn on a terminal). */
function noteLastLine(lastOutput: Map<string, string>, item: string, chunk: Buffer): void {
  const [last] = outputTail(chunk.toString("utf8"), { lines: 1, width: 80 });
  if (last !== undefined) lastOutput.set(item, last.trim());
}

/** What is still running, a line each: the planner while the mission plans, each running item's agent. */
function stillRunning(m: Mission, lastOutput: ReadonlyMap<string, string>, now: Date): string[] {
  const said = (key: string) => {
    const last = lastOutput.get(key);
    return last === undefined ? "" : ` — ${last}`;
  };
  if (m.status === "planning") return [`planner: running for ${clock(now.getTime() - Date.parse(m.created_at))}${said(PLANNER_OUTPUT)}`];
  return m.items.flatMap((i) => {
    const a = i.attempts.at(-1);
    const since = a?.started_at ?? a?.dispatched_at;
    if (i.status !== "running" || a === undefined || since === undefined || a.exited_at !== null) return [];
    return [`${i.id}: attempt ${a.n} running for ${clock(now.getTime() - Date.parse(since))}${said(i.id)}`];
  });
}

/** A live block on a terminal: the log lines scroll above, the running items stay below. */
export function terminalProgress(write: (text: string) => void, now: () => Date): Progress {
  const log = logProgress((t) => lines.push(t), now, { every: null });
  const lines: string[] = [];
  let drawn = 0;
  let mission: Mission | null = null;
  const lastOutput = new Map<string, string>();
  const redraw = () => {
    const block = mission ? liveLines(mission, lastOutput, now()) : [];
    let text = drawn > 0 ? `\x1b[${drawn}A\x1b[J` : "";
    text += lines.splice(0).join("");
    text += block.map((l) => `${l}\n`).join("");
    drawn = block.length;
    write(text);
  };
  const timer = setInterval(redraw, 1000);
  timer.unref();
  return {
    event(e, m) {
      mission = m;
      log.event(e, m);
      redraw();
    },
    output(item, chunk) {
      noteLastLine(lastOutput, item, chunk);
    },
    error(e) {
      log.error(e);
      redraw();
    },
    close() {
      clearInterval(timer);
      mission = null;
      redraw();
    },
  };
}

function liveLines(m: Mission, lastOutput: ReadonlyMap<string, string>, now: Date): string[] {
  const running = m.items.filter((i) => i.status === "running");
  const count = (s: string) => m.items.filter((i) => i.status === s).length;
  const cut = (text: string | undefined) => (text === undefined ? "" : text.length > 60 ? `${text.slice(0, 59)}…` : text);
  const lines = running.map((i) => {
    const a = i.attempts.at(-1);
    const since = a?.started_at ?? a?.dispatched_at;
    const elapsed = since ? clock(now.getTime() - Date.parse(since)) : "";
    return `  ⟳ ${i.id.padEnd(24)} attempt ${a?.n ?? 1}  ${elapsed}  ${cut(lastOutput.get(i.id))}`;
  });
  if (m.status === "planning")
    lines.push(`  ⟳ ${"planner".padEnd(24)} ${clock(now.getTime() - Date.parse(m.created_at))}  ${cut(lastOutput.get(PLANNER_OUTPUT))}`);
  lines.push(
    `  ${m.id} ${m.status}: ${count("integrated")}/${m.items.length} integrated, ${running.length} running, ` +
      `${count("checkpointed")} waiting for the queue, ${m.items.filter((i) => ["failed", "conflicted", "out_of_scope", "timed_out", "tampered"].includes(i.status)).length} failed`,
  );
  return lines;
}

function describe(e: MissionEvent, m: Mission): string | null {
  switch (e.type) {
    case "requested":
      return `mission ${e.id} on ${e.base.ref} (${e.base.commit.slice(0, 12)}): ${firstLine(e.task)}`;
    case "planned":
      return `planned ${e.items.length} items: ${e.title}`;
    case "planning_failed":
      return `planning failed: ${e.reason}${lastWords(e.output_tail)}`;
    case "approved":
      return "approved";
    case "attempt_dispatched":
      return `${e.item}: attempt ${e.attempt} waits for a runner`;
    case "attempt_started":
      return `${e.item}: attempt ${e.attempt} started${e.base ? ` on ${e.base.slice(0, 12)}` : ""}`;
    case "agent_exited":
      return null; // the attempt's own line follows once naruto has checked what it left
    case "attempt_finished": {
      const o = e.outcome;
      const what =
        o.kind === "checkpointed"
          ? `checkpoint ${o.commit.slice(0, 12)} (${o.changed.length} files)`
          : o.kind === "out_of_scope"
            ? `out of scope: ${o.paths.join(", ")}`
            : o.kind === "no_changes"
              ? "no changes"
              : o.kind === "permanent"
                ? `failed: ${firstLine(outcomeReason(o))}`
                : isNeverStarted(o)
                  ? "had not begun when the last run stopped: it starts again, and does not count"
                  : `${o.kind}: ${firstLine(outcomeReason(o))}`;
      return `${e.item}: attempt ${e.attempt} ${what}${lastWords(e.output_tail)}`;
    }
    case "integrated":
      return [
        ...(e.base_check ? [`base ${e.base_check.commit.slice(0, 12)} ${e.base_check.green ? "verified green" : "is red"}`] : []),
        ...e.results.map(resultLine),
        `queue at ${e.queue_head.slice(0, 12)} (${e.verify_runs} verify runs)`,
        ...(e.halt ? [`integration stopped: ${firstLine(e.halt)}`] : []),
      ].join("; ");
    case "refreshed":
      return [
        `refreshed onto ${e.base.ref} (${e.base.commit.slice(0, 12)})`,
        ...e.results.map(resultLine),
        ...e.skipped.map((s) => `${s.item}: ${s.reason}`),
        `queue at ${e.queue_head.slice(0, 12)}`,
      ].join("; ");
    case "verify_failed":
      return `${e.item}: failed queue verification`;
    case "reviewed":
      return `verdict: ${e.verdict} — ${firstLine(e.summary)}`;
    case "cancelled":
      return `cancelled${e.by ? ` by ${e.by}` : ""}`;
    case "retry_requested":
      return `retry requested: ${e.target}`;
    case "stopped":
      return `stopped: ${e.reason}`;
    case "refresh_requested":
      return e.onto === null ? null : `refresh requested onto ${e.onto.slice(0, 12)}`;
    case "base_moved":
      return `the base branch moved to ${e.commit.slice(0, 12)}: the queue stands on the old base`;
    case "tampered":
      return e.findings
        .map(
          (f) =>
            `TAMPERED: ${f.what} ${f.before ?? "(absent)"} → ${f.after ?? "(deleted)"} (${f.blame === "user" ? "your own change: no agent could reach the repository" : f.blame === "not_naruto" ? "naruto's ref, moved by something else" : `while ${f.attempts.join(", ")} ran without the sandbox`})${f.action ? `; ${f.action}` : ""}`,
        )
        .join("\n");
    case "tick":
      return `time limit: ${m.reason ?? "an attempt ran past item_timeout and was stopped"}`;
  }
}

/** An agent's last lines (already redacted and cut, see src/agent/output-tail.ts), under its line. */
function lastWords(tail: readonly string[] | undefined): string {
  return (tail ?? []).map((line) => `\n        │ ${line}`).join("");
}

function resultLine(r: Extract<MissionEvent, { type: "integrated" }>["results"][number]): string {
  switch (r.kind) {
    case "integrated":
      return `${r.item}: integrated as ${r.commit.slice(0, 12)}`;
    case "conflicted":
      return `${r.item}: conflicted on ${r.paths.join(", ")}`;
    case "verify_failed":
      return `${r.item}: failed queue verification`;
    case "flaky":
      return `${r.item}: the verify flipped on its candidate (flaky); not blamed, it waits for the next batch`;
  }
}

function firstLine(text: string): string {
  return (text.split("\n")[0] ?? "").slice(0, 160);
}

function clock(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${String(Math.floor(s / 60)).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
}
