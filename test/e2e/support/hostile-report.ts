/** Reads what the hostile agents wrote to their report folder (test/support/agents/hostile-*.mjs). */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import type { RecordedRequest } from "../../support/fake-github/index.ts";
import type { JobResult, RunResult } from "../../support/actions-sim/index.ts";
import { check, checkEqual } from "../scenarios/scenario.ts";
import { REPO, type World } from "./world.ts";

const Attempt = z.looseObject({
  worked: z.boolean(),
  what: z.string().optional(),
  ref: z.string().optional(),
  token: z.string().optional(),
  status: z.number().optional(),
});
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

/**
 * What GitHub holds after hostile code ran: no ref named `hostile-…`, no "hostile write" comment,
 * main where it was, and none of the hostile API calls accepted. Returns those calls, so that a
 * scenario can also check that some were made.
 */
export async function checkNothingHostileLanded(world: World, runs: readonly RunResult[], mainBefore: string): Promise<readonly RecordedRequest[]> {
  const refs = await world.bareGit("for-each-ref", "--format=%(refname)");
  check(!/hostile/.test(refs), `hostile refs exist:\n${refs}`, runs);
  checkEqual(await world.bareGit("rev-parse", "refs/heads/main"), mainBefore, "main", runs);
  checkEqual([...world.fake.repo(REPO).comments.values()].filter((c) => c.body.includes("hostile write")).length, 0, "hostile comments", runs);
  // The hostile code's own calls: refs named hostile-…, comments saying "hostile write …".
  const calls = world.fake.requests.filter((r) => /"(ref":"refs\/heads\/hostile-|body":"hostile write )/.test(JSON.stringify(r.body ?? null)));
  checkEqual(
    calls.filter((r) => r.status < 400).map((r) => `${r.method} ${r.path} ${r.status}`),
    [],
    "hostile API calls GitHub accepted",
    runs,
  );
  return calls;
}

/** Whether a job of a run is the first attempt's work leg of `item` (the job's name also names the mission). */
export function isWorkLeg(job: JobResult, item: string, attempt = 1): boolean {
  return job.job === "work" && job.matrix?.["item"] === item && Number(job.matrix["attempt"]) === attempt;
}
