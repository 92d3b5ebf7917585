/**
 * What a person sees while a local mission runs: on a terminal, one live line per running item
 * plus totals, redrawn in place; elsewhere (CI, a pipe), plain log lines, one per event.
 */
import type { Mission } from "../mission/index.ts";
import type { MissionEvent } from "../mission/index.ts";

export interface Progress {
  event(event: MissionEvent, mission: Mission): void;
  output(item: string, chunk: Buffer): void;
  error(error: unknown): void;
  /** Clears the live view before the final summary. */
  close(): void;
}

export const silentProgress: Progress = { event() {}, output() {}, error() {}, close() {} };

/** One line per event, prefixed with the time since the start. */
export function logProgress(write: (text: string) => void, now: () => Date): Progress {
  const start = now().getTime();
  const stamp = () => `[${clock(now().getTime() - start)}]`;
  return {
    event(e, m) {
      const line = describe(e, m);
      if (line) write(`${stamp()} ${line}\n`);
    },
    output() {},
    error(e) {
      write(`${stamp()} warning: ${e instanceof Error ? e.message : String(e)}\n`);
    },
    close() {},
  };
}

/** A live block on a terminal: the log lines scroll above, the running items stay below. */
export function terminalProgress(write: (text: string) => void, now: () => Date): Progress {
  const log = logProgress((t) => lines.push(t), now);
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
      const last = chunk.toString("utf8").split("\n").map((l) => l.trim()).filter((l) => l !== "").at(-1);
      if (last) lastOutput.set(item, last.slice(0, 60));
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
  const lines = running.map((i) => {
    const a = i.attempts.at(-1);
    const since = a?.started_at ?? a?.dispatched_at;
    const elapsed = since ? clock(now.getTime() - Date.parse(since)) : "";
    return `  ⟳ ${i.id.padEnd(24)} attempt ${a?.n ?? 1}  ${elapsed}  ${lastOutput.get(i.id) ?? ""}`;
  });
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
    case "attempt_started":
      return `${e.item}: attempt ${e.attempt} started on ${e.base.slice(0, 12)}`;
    case "agent_exited":
      return null; // the attempt's own line follows once naruto has checked what it left
    case "attempt_finished": {
      const o = e.outcome;
      const what =
        o.kind === "checkpointed" ? `checkpoint ${o.commit.slice(0, 12)} (${o.changed.length} files)`
        : o.kind === "out_of_scope" ? `out of scope: ${o.paths.join(", ")}`
        : o.kind === "no_changes" ? "no changes"
        : o.kind === "permanent" ? `failed: ${firstLine(o.reason)}`
        : `${o.kind}: ${firstLine(o.reason)}`;
      return `${e.item}: attempt ${e.attempt} ${what}${lastWords(e.output_tail)}`;
    }
    case "integrated":
      return e.results
        .map((r) =>
          r.kind === "integrated" ? `${r.item}: integrated as ${r.commit.slice(0, 12)}`
          : r.kind === "conflicted" ? `${r.item}: conflicted on ${r.paths.join(", ")}`
          : `${r.item}: failed queue verification`,
        )
        .concat(`queue at ${e.queue_head.slice(0, 12)} (${e.verify_runs} verify runs)`)
        .join("; ");
    case "verify_failed":
      return `${e.item}: failed queue verification`;
    case "reviewed":
      return `verdict: ${e.verdict} — ${firstLine(e.summary)}`;
    case "cancelled":
      return `cancelled${e.by ? ` by ${e.by}` : ""}`;
    case "retry_requested":
      return `retry requested: ${e.target}`;
    case "tampered":
      return e.findings.map((f) => `TAMPERED: ${f.what} ${f.before ?? "(absent)"} → ${f.after ?? "(deleted)"} (${f.blame === "user" ? "your own change: no agent could reach the repository" : f.blame === "not_naruto" ? "naruto's ref, moved by something else" : `while ${f.attempts.join(", ")} ran without the sandbox`})${f.action ? `; ${f.action}` : ""}`).join("\n");
    case "tick":
      return `time limit: ${m.reason ?? "an attempt ran past item_timeout and was stopped"}`;
  }
}

/** An agent's last lines (already redacted and cut, see src/agent/output-tail.ts), under its line. */
function lastWords(tail: readonly string[] | undefined): string {
  return (tail ?? []).map((line) => `\n        │ ${line}`).join("");
}

function firstLine(text: string): string {
  return (text.split("\n")[0] ?? "").slice(0, 160);
}

function clock(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${String(Math.floor(s / 60)).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
}
