/** Reads what the hostile agents wrote to their report folder (test/support/agents/hostile-*.mjs). */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";

const Attempt = z.looseObject({ worked: z.boolean(), what: z.string().optional(), ref: z.string().optional(), token: z.string().optional(), status: z.number().optional() });
const Entry = z.looseObject({
  label: z.string(),
  event: z.string(),
  /** The hunter's: whether it ran in a simulator machine (its own /proc), and how much it searched. */
  inMachine: z.boolean().optional(),
  processes: z.number().optional(),
  files: z.number().optional(),
  found: z.array(z.object({ where: z.string(), token: z.string() })).default([]),
  attempts: z.array(Attempt).default([]),
  worked: z.array(Attempt).default([]),
});
export type HostileEntry = z.output<typeof Entry>;

/** The entries of `hunter`, `pusher` or `lingerer` in `dir`, in the order written; [] when none. */
export async function readReport(dir: string, agent: "hunter" | "pusher" | "lingerer"): Promise<HostileEntry[]> {
  const text = await readFile(join(dir, `${agent}.jsonl`), "utf8").catch(() => "");
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => Entry.parse(JSON.parse(line)));
}

/** The entries an agent printed to its step's log (`naruto-hostile-report FILE JSON`, the agent output is indented `  | `). */
export function reportFromLog(log: string, agent: "hunter" | "pusher" | "lingerer"): HostileEntry[] {
  const out: HostileEntry[] = [];
  for (const line of log.split("\n")) {
    const at = line.indexOf(`naruto-hostile-report ${agent}.jsonl `);
    if (at === -1) continue;
    out.push(Entry.parse(JSON.parse(line.slice(at + `naruto-hostile-report ${agent}.jsonl `.length))));
  }
  return out;
}
