/**
 * `naruto plan FILE [--json] [--strict] [--max-parallel N] [--max-items N]` (DESIGN.md §4):
 * validates a plan, orders its conflicts, proves it, and estimates its schedule.
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { Config } from "../config/index.ts";
import { checkPlan, defaultPlanLimits, verifyProof, type PlanError } from "../plan/index.ts";
import type { CliIO } from "./io.ts";
import { formatPlanHuman } from "./plan-format.ts";
import { planReport, type PlanCommandOptions } from "./plan-report.ts";

export { planReport, type PlanCommandOptions, type PlanJson, type PlanReport } from "./plan-report.ts";

export async function planCommand(io: CliIO, file: string, options: PlanCommandOptions, config: Config | null): Promise<number> {
  const text = file === "-" ? await io.readStdin() : await readFile(resolve(io.cwd, file), "utf8");
  const report = planReport(text, options, config);
  if (options.json) {
    io.stdout(JSON.stringify(report.json, null, 2) + "\n");
  } else {
    if (report.check.plan) io.stdout(formatPlanHuman(report));
    for (const e of report.check.errors) io.stderr(`${formatError(e)}\n`);
  }
  return report.json.ok ? 0 : 1;
}

function formatError(e: PlanError): string {
  const where = e.index !== null ? `items[${e.index}]${e.item !== null ? ` (id "${e.item}")` : ""}.${e.field}` : e.field;
  return `${where}: ${e.message}`;
}

/** `naruto verify-proof PLAN PROOF`: exit 0 when the proof checks against the plan, else 1. */
export async function verifyProofCommand(io: CliIO, planFile: string, proofFile: string): Promise<number> {
  const read = (f: string) => (f === "-" ? io.readStdin() : readFile(resolve(io.cwd, f), "utf8"));
  // The proof is about overlap, not policy: check it whatever limits the plan was made under.
  const limits = { ...defaultPlanLimits(), maxItems: Number.MAX_SAFE_INTEGER, allowProtected: true };
  const check = checkPlan(await read(planFile), { limits });
  if (!check.plan) {
    io.stderr(`the plan is invalid:\n${check.errors.map((e) => formatError(e)).join("\n")}\n`);
    return 1;
  }
  let proof: unknown;
  try {
    const parsed: unknown = JSON.parse(await read(proofFile));
    // `naruto plan --json` output holds the proof under "proof"; accept either form.
    proof = isObject(parsed) && "proof" in parsed && !("schema" in parsed) ? parsed.proof : parsed;
  } catch (e) {
    io.stderr(`the proof is not JSON: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
  const verdict = verifyProof(check.plan, proof);
  if (verdict.ok) {
    io.stdout("proof ok: every pair of items that may run at the same time writes disjoint paths\n");
    return 0;
  }
  io.stderr(`proof rejected:\n${verdict.reasons.map((r) => `- ${r}`).join("\n")}\n`);
  return 1;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
